-- ledger._reopen_finding(p_finding ledger.finding, p_action text, p_rule text,
--     p_actor text, p_reason text, p_evidence text, p_merge_id bigint,
--     p_detail jsonb) -> void
--
-- Makes a superseded or dismissed finding active again: writes one audit row
-- first (action p_action: 'reopened' or 'restored'; rule p_rule: 'rereport',
-- 'revert', 'manual'), whose detail is p_detail plus what is being undone
-- (from_state, superseded_at, superseded_by, superseded_by_merge_id,
-- supersede_rule, resolution, dismissed_by, dismissal_reason), then clears
-- the supersession and dismissal columns and increments reopen_count.
-- The caller has locked p_finding's row (SELECT ... FOR NO KEY UPDATE) and checked
-- that it is not active. Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger._reopen_finding(
    p_finding ledger.finding, p_action text, p_rule text, p_actor text, p_reason text,
    p_evidence text, p_merge_id bigint, p_detail jsonb)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO ledger.supersession (scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason)
    VALUES (p_finding.scope, p_finding.id, p_merge_id, p_action, p_rule, p_evidence,
            coalesce(p_detail, '{}'::jsonb) || jsonb_strip_nulls(jsonb_build_object(
                'from_state', ledger._finding_state(p_finding.superseded_at, p_finding.dismissed_at),
                'superseded_at', p_finding.superseded_at,
                'superseded_by', p_finding.superseded_by,
                'superseded_by_merge_id', p_finding.superseded_by_merge_id,
                'supersede_rule', p_finding.supersede_rule,
                'resolution', p_finding.resolution,
                'dismissed_by', p_finding.dismissed_by,
                'dismissal_reason', p_finding.dismissal_reason)),
            p_actor, p_reason);

    UPDATE ledger.finding f
       SET superseded_at = NULL,
           superseded_by = NULL,
           superseded_by_merge_id = NULL,
           supersede_rule = NULL,
           dismissed_at = NULL,
           dismissed_by = NULL,
           resolution = NULL,
           dismissal_reason = NULL,
           reopen_count = f.reopen_count + 1
     WHERE f.id = p_finding.id;
END
$$;

COMMENT ON FUNCTION ledger._reopen_finding(ledger.finding, text, text, text, text, text, bigint, jsonb) IS
'Make a locked, inactive finding active again: audit row first (action reopened or restored, with what is undone in detail), then clear supersession and dismissal, reopen_count + 1. (finding, action, rule, actor, reason, evidence, merge_id, detail) -> void. Raises nothing.';
