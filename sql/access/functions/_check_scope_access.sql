-- ledger._check_scope_access(p_scope text, p_field text) -> void
--
-- Refuses a write into a scope this connection may not use. While per-scope
-- row-level security is off (the default: ledger.scope has no ROW LEVEL
-- SECURITY) every scope is allowed and this returns at once. While it is on
-- (ledger.enable_scope_rls), p_scope must be one of ledger._visible_scopes()
-- (the setting ledger.scopes; see ledger._scope_visible), for every caller,
-- the table owner included: the check also runs inside SECURITY DEFINER
-- functions, whose current_user is the owner whoever called them. Called by the
-- _050_scope_access triggers on finding, merge, scope and issue, and by
-- ledger.reconcile, report_finding and replace_findings.
-- Raises LD401 (scope_denied) naming p_field, the scope and the setting.
CREATE OR REPLACE FUNCTION ledger._check_scope_access(p_scope text, p_field text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF ledger._scope_visible(p_scope) THEN
        RETURN;
    END IF;
    RAISE EXCEPTION 'scope denied: % % is not one of this connection''s scopes (ledger.scopes = %)',
        p_field, quote_nullable(p_scope), quote_nullable(current_setting('ledger.scopes', true))
        USING ERRCODE = 'LD401',
              HINT = 'Per-scope row-level security is on: SET ledger.scopes to the comma-separated scopes this connection serves.';
END
$$;

COMMENT ON FUNCTION ledger._check_scope_access(text, text) IS
'Refuse a scope the connection may not use while per-scope row-level security is on (scope must be listed in ledger.scopes). (scope text, field text) -> void. Raises LD401 naming the field, the scope and the setting.';
