-- ledger._apply_merge(p_merge_id bigint) -> void
--
-- The path rule of seed 000 ("Option A") for one merge row, shared by the
-- AFTER INSERT trigger (ledger.tg_merge__supersede) and ledger.reconcile, so
-- that a merge applied late (written while triggers did not fire) gets
-- exactly the decisions the trigger would have taken. Every active finding
-- of the merge's scope that references a path the merge touched is
-- superseded, per the scope's hygiene_mode:
--   on   the finding gets superseded_at = now(), superseded_by = the merge's
--        node_id (the marker seed 000's system filters on; the commit sha when
--        the merge has no node_id), superseded_by_merge_id and
--        supersede_rule = 'path'; one audit row (action 'superseded') is
--        written first, in the same transaction;
--   dry  only audit rows with action 'would_supersede'; no finding changes;
--   off  nothing.
-- Findings are locked in id order (FOR NO KEY UPDATE) before they change, so
-- concurrent merges never deadlock on them; a finding another transaction
-- superseded while this one waited is audited as 'already_superseded' and
-- left alone.
-- Runs with the rights of its caller: EXECUTE is granted to no ledger role;
-- the SECURITY DEFINER callers run it as the owner. An unknown id does
-- nothing. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._apply_merge(p_merge_id bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_merge   ledger.merge;
    v_mode    text;
    v_ids     bigint[];
    v_fpaths  text[];
    v_touched text[];
    v_live    bigint[];
    v_marker  text;
BEGIN
    SELECT m.* INTO v_merge FROM ledger.merge m WHERE m.id = p_merge_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_marker := coalesce(v_merge.node_id, v_merge.commit_sha);

    SELECT s.hygiene_mode INTO v_mode FROM ledger.scope s WHERE s.scope = v_merge.scope;
    IF v_mode = 'off' OR cardinality(v_merge.paths) = 0 THEN
        RETURN;
    END IF;

    SELECT array_agg(m.finding_id ORDER BY m.finding_id),
           array_agg(m.finding_path ORDER BY m.finding_id),
           array_agg(m.touched_path ORDER BY m.finding_id)
      INTO v_ids, v_fpaths, v_touched
      FROM ledger._match_paths(v_merge.scope, v_merge.paths) AS m;
    IF v_ids IS NULL THEN
        RETURN;
    END IF;

    IF v_mode = 'dry' THEN
        INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
        SELECT v_merge.scope, h.id, v_merge.id, 'would_supersede', 'path', h.touched,
               jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
          FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);
        RETURN;
    END IF;

    -- Lock in id order; re-checks superseded_at against the latest committed row.
    -- FOR NO KEY UPDATE, not FOR UPDATE: the audit rows below reference every
    -- matched finding, and their foreign key check takes FOR KEY SHARE on it,
    -- also on findings another merge holds (the already_superseded ones).
    -- KEY SHARE waits for FOR UPDATE but not for NO KEY UPDATE, so with FOR
    -- UPDATE those checks were lock waits outside the id order: three merges
    -- could deadlock (found by tests/test_concurrency.py).
    SELECT array_agg(l.id) INTO v_live
      FROM (SELECT f.id FROM ledger.finding f
             WHERE f.id = ANY (v_ids) AND f.superseded_at IS NULL
             ORDER BY f.id FOR NO KEY UPDATE) AS l;

    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail)
    SELECT v_merge.scope, h.id, v_merge.id,
           CASE WHEN h.id = ANY (coalesce(v_live, '{}')) THEN 'superseded' ELSE 'already_superseded' END,
           'path', h.touched,
           jsonb_build_object('finding_path', h.fpath, 'touched_path', h.touched)
      FROM unnest(v_ids, v_fpaths, v_touched) AS h(id, fpath, touched);

    UPDATE ledger.finding f
       SET superseded_at = now(),
           superseded_by = v_marker,
           superseded_by_merge_id = v_merge.id,
           supersede_rule = 'path'
     WHERE f.id = ANY (coalesce(v_live, '{}'));
END
$$;

COMMENT ON FUNCTION ledger._apply_merge(bigint) IS
'Apply seed 000 Option A for one merge (shared by the _200_supersede trigger and reconcile): supersede the scope''s active findings whose paths the merge touched (hygiene_mode on), or audit would_supersede (dry), or nothing (off). Audit row first, findings locked in id order. (merge_id bigint) -> void. Raises nothing.';
