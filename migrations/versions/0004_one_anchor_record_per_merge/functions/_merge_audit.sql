CREATE OR REPLACE FUNCTION ledger._merge_audit(p_merge_id bigint)
RETURNS jsonb
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('finding_id', r.finding_id, 'action', r.action, 'rule', r.rule,
                                                 'evidence', r.evidence, 'reason', r.reason, 'detail', r.detail)
                              ORDER BY r.id, r.finding_id), '[]'::jsonb)
      FROM (SELECT a.id, a.finding_id, a.action, a.rule, a.evidence, a.reason, a.detail
              FROM ledger.supersession a
             WHERE a.merge_id = p_merge_id AND NOT (a.finding_id IS NULL AND a.action = 'anchor_moved')
            UNION ALL
            SELECT a.id, e.finding_id, a.action, a.rule, e.evidence, e.reason, e.detail
              FROM ledger.supersession a, ledger._anchor_moves(a.detail) AS e
             WHERE a.merge_id = p_merge_id AND a.finding_id IS NULL AND a.action = 'anchor_moved') AS r
$$;

COMMENT ON FUNCTION ledger._merge_audit(bigint) IS
'A merge''s audit rows as the decisions record_merge, record_merges and reconcile return: (merge_id) -> jsonb array of {finding_id, action, rule, evidence, reason, detail} in audit order, the merge''s anchor record expanded to one anchor_moved element per finding (ledger._anchor_moves). Raises nothing.';
