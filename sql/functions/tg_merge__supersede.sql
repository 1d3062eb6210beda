-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- When a merge lands, decide for every active finding of its scope that the
-- merge carries evidence about (ledger._merge_decisions): the path rule of
-- seed 000 "Option A" (a touched path the finding references) and the
-- commit-message rules of issue 3 (key, slug, keyword, title, governed by a
-- resolution verb, unambiguous), under the scope's policy. Per the scope's
-- hygiene_mode:
--   on   one audit row per decision (superseded, ambiguous, candidate,
--        mention, skipped, with rule, exact evidence, reason and detail) is
--        written first, in the same transaction; then every finding decided
--        'supersede' gets superseded_at = now(), superseded_by = the merge's
--        node_id (seed 000's marker; its commit sha when it has none),
--        superseded_by_merge_id and supersede_rule = the deciding rule;
--   dry  the same audit rows with 'would_supersede' instead of
--        'superseded'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; one that another transaction superseded (or a
-- person dismissed) while this one waited is audited as 'already_superseded'
-- and left alone. Findings already superseded or dismissed are not active
-- and are never looked at. Row-level and fired in insertion order, so
-- multi-row INSERT and COPY give the same result as the same rows inserted
-- one by one or through ledger.record_merge. A redelivered merge (ON
-- CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode     text;
    v_ids      bigint[];
    v_actions  text[];
    v_rules    text[];
    v_evidence text[];
    v_reasons  text[];
    v_details  jsonb[];
    v_resolve  bigint[];
    v_live     bigint[] := '{}';
    v_marker   text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR (cardinality(NEW.paths) = 0 AND NEW.message !~ '\S') THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(d.finding_id ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.action ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.rule ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.evidence ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.reason ORDER BY d.finding_id NULLS FIRST),
           array_agg(d.detail ORDER BY d.finding_id NULLS FIRST)
      INTO v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details
      FROM ledger._merge_decisions(NEW.scope, NEW.message, NEW.paths, NEW.branch) AS d;
    IF v_actions IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'on' THEN
        v_resolve := ARRAY(SELECT x.id FROM unnest(v_ids, v_actions) AS x(id, a) WHERE x.a = 'supersede');
        IF cardinality(v_resolve) > 0 THEN
            -- Lock in id order; re-checks superseded_at against the latest committed row.
            SELECT coalesce(array_agg(l.id), '{}') INTO v_live
              FROM (SELECT f.id FROM ledger.finding f
                     WHERE f.id = ANY (v_resolve) AND f.superseded_at IS NULL
                     ORDER BY f.id FOR UPDATE) AS l;
        END IF;
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, reason, detail)
    SELECT NEW.scope, x.id, NEW.id,
           CASE WHEN x.a <> 'supersede' THEN x.a
                WHEN v_mode = 'dry' THEN 'would_supersede'
                WHEN x.id = ANY (v_live) THEN 'superseded'
                ELSE 'already_superseded' END,
           x.r, x.e, x.why, x.d
      FROM unnest(v_ids, v_actions, v_rules, v_evidence, v_reasons, v_details)
           WITH ORDINALITY AS x(id, a, r, e, why, d, o)
     ORDER BY x.o;

    IF cardinality(v_live) > 0 THEN
        UPDATE ledger.finding f
           SET superseded_at = now(),
               superseded_by = v_marker,
               superseded_by_merge_id = NEW.id,
               supersede_rule = v_rules[array_position(v_ids, f.id)]
         WHERE f.id = ANY (v_live);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge: applies ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy). hygiene_mode on: audit rows first (superseded, ambiguous, candidate, mention, skipped), then supersedes; dry: audit with would_supersede only; off: nothing. Findings locked in id order; a lost race is audited already_superseded. Raises nothing.';
