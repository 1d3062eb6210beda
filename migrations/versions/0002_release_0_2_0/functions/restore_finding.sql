CREATE OR REPLACE FUNCTION ledger.restore_finding(p_finding_id bigint, p_actor text, p_reason text)
RETURNS ledger.finding_lifecycle
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_actor  text := ledger._check_text(p_actor, 'actor', true, 200);
    v_reason text := ledger._check_text(p_reason, 'reason', true, 10000, false);
    v_row    ledger.finding;
    v_out    ledger.finding_lifecycle;
BEGIN
    PERFORM ledger._require_role('ledger_admin', 'ledger.restore_finding');
    SELECT f.* INTO v_row FROM ledger.finding f
     WHERE f.id = p_finding_id AND ledger._scope_visible(f.scope)
       FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown finding: %', coalesce(p_finding_id::text, 'NULL') USING ERRCODE = 'LD005';
    END IF;
    IF v_row.superseded_at IS NULL THEN
        RAISE EXCEPTION 'finding % is already active: nothing to restore', v_row.id
            USING ERRCODE = 'LD302', HINT = 'Only a superseded or dismissed finding can be restored.';
    END IF;
    PERFORM ledger._reopen_finding(v_row, 'restored', 'manual', v_actor, v_reason, NULL, NULL, NULL);
    SELECT l.* INTO v_out FROM ledger.finding_lifecycle l WHERE l.id = v_row.id;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.restore_finding(bigint, text, text) IS
'Undo a supersession or a dismissal: the finding is active again, audited (restored, manual, actor, reason, what was undone), reopen_count + 1. SECURITY DEFINER (ledger_admin); a finding of a scope outside ledger.scopes under row-level security is unknown. (finding_id, actor, reason) -> ledger.finding_lifecycle. Raises LD002, LD004, LD005, LD302 (already active). The caller must hold ledger_admin, else LD403.';
