-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- Seed 000, "Option A": when a merge lands, every active finding of the same
-- scope that references a path the merge touched is superseded. Per the
-- scope's hygiene_mode:
--   on   the finding gets superseded_at = now(), superseded_by = the merge's
--        node_id (the marker seed 000's system filters on; the commit sha when
--        the merge has no node_id), superseded_by_merge_id and
--        supersede_rule = 'path'; one audit row (action 'superseded') is
--        written first, in the same transaction;
--   dry  only audit rows with action 'would_supersede'; no finding changes;
--   off  nothing.
-- Findings are locked in id order before they change, so concurrent merges
-- never deadlock on them; a finding another transaction superseded while
-- this one waited is audited as 'already_superseded' and left alone.
-- Row-level and fired in insertion order, so multi-row INSERT and COPY give
-- the same result as the same rows inserted one by one. A redelivered merge
-- (ON CONFLICT DO NOTHING) inserts no row and so has no effect.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_mode    text;
    v_ids     bigint[];
    v_fpaths  text[];
    v_touched text[];
    v_live    bigint[];
    v_marker  text := coalesce(NEW.node_id, NEW.commit_sha);
BEGIN
    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = NEW.scope;
    IF v_mode = 'off' OR cardinality(NEW.paths) = 0 THEN
        RETURN NULL;
    END IF;

    SELECT array_agg(m.finding_id ORDER BY m.finding_id),
           array_agg(m.finding_path ORDER BY m.finding_id),
           array_agg(m.touched_path ORDER BY m.finding_id)
      INTO v_ids, v_fpaths, v_touched
      FROM ledger._match_paths(NEW.scope, NEW.paths) AS m;
    IF v_ids IS NULL THEN
        RETURN NULL;
    END IF;

    IF v_mode = 'dry' THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
        SELECT NEW.scope, h.id, NEW.id, 'would_supersede', 'path', h.touched,
               jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
          FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);
        RETURN NULL;
    END IF;

    -- Lock in id order; re-checks superseded_at against the latest committed row.
    SELECT array_agg(l.id) INTO v_live
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id = ANY (v_ids) AND f.superseded_at IS NULL
             ORDER BY f.id FOR UPDATE) AS l;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
    SELECT NEW.scope, h.id, NEW.id,
           CASE WHEN h.id = ANY (coalesce(v_live, '{}')) THEN 'superseded' ELSE 'already_superseded' END,
           'path', h.touched,
           jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
      FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);

    UPDATE ledger.finding f
       SET superseded_at = now(),
           superseded_by = v_marker,
           superseded_by_merge_id = NEW.id,
           supersede_rule = 'path'
     WHERE f.id = ANY (coalesce(v_live, '{}'));
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge implementing seed 000 Option A: supersedes the active findings of the scope whose paths the merge touched (hygiene_mode on), or audits would_supersede (dry), or nothing (off). Audit row first, findings locked in id order. Raises nothing.';
