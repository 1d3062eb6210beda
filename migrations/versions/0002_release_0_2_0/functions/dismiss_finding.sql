CREATE OR REPLACE FUNCTION ledger.dismiss_finding(
    p_finding_id bigint, p_resolution text, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_resolution text := replace(lower(ledger._check_text(p_resolution, 'resolution', true, 40) COLLATE "C"), '-', '_');
    v_actor  text := ledger._check_text(p_actor, 'actor', true, 200);
    v_reason text := ledger._check_text(p_reason, 'reason', true, 10000, false);
    v_row    ledger.finding;
    v_out    ledger.finding_lifecycle;
BEGIN
    PERFORM ledger._require_role('ledger_admin', 'ledger.dismiss_finding');
    IF v_resolution NOT IN ('accepted', 'false_positive', 'wont_fix', 'duplicate') THEN
        RAISE EXCEPTION 'invalid resolution: % (expected accepted, false_positive, wont_fix or duplicate)',
            quote_literal(p_resolution) USING ERRCODE = 'LD003';
    END IF;
    SELECT f.* INTO v_row FROM ledger.finding f
     WHERE f.id = p_finding_id AND ledger._scope_visible(f.scope)
       FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    IF v_row.dismissed_at IS NOT NULL THEN
        RAISE EXCEPTION 'finding % is already dismissed (% by %)', v_row.id, v_row.resolution, quote_literal(v_row.dismissed_by)
            USING ERRCODE = 'LD302', HINT = 'To change the decision, ledger.restore_finding it first, then dismiss it again.';
    END IF;

    INSERT INTO ledger.supersession (scope, finding_id, action, rule, detail, actor, reason)
    VALUES (v_row.scope, v_row.id, 'dismissed', 'manual',
            jsonb_strip_nulls(jsonb_build_object(
                'resolution', v_resolution,
                'from_state', ledger._finding_state(v_row.superseded_at, v_row.dismissed_at),
                'superseded_at', v_row.superseded_at,
                'superseded_by', v_row.superseded_by,
                'superseded_by_merge_id', v_row.superseded_by_merge_id,
                'supersede_rule', v_row.supersede_rule)),
            v_actor, v_reason);

    UPDATE ledger.finding f
       SET dismissed_at = now(),
           dismissed_by = v_actor,
           resolution = v_resolution,
           dismissal_reason = v_reason,
           superseded_at = now(),
           superseded_by = v_actor,
           superseded_by_merge_id = NULL,
           supersede_rule = 'dismissal'
     WHERE f.id = v_row.id;

    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = v_row.id;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.dismiss_finding(bigint, text, text, text) IS
'A person dismisses a finding (accepted, false_positive, wont_fix, duplicate) with actor and reason; audited first; it also leaves the active set (superseded_at, rule dismissal) and no automation changes it again. SECURITY DEFINER (ledger_admin); a finding of a scope outside ledger.scopes under row-level security is unknown. (finding_id, resolution, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD003, LD004, LD005, LD302 (already dismissed). The caller must hold ledger_admin, else LD403.';
