-- ledger._scope_visible(p_scope text) -> boolean
--
-- Whether this connection may see and use scope p_scope: always true while
-- per-scope row-level security is off (ledger.scope has no ROW LEVEL
-- SECURITY, the default); while it is on (ledger.enable_scope_rls), true
-- only for a scope listed in ledger._visible_scopes() (the setting
-- ledger.scopes), for every caller, the table owner included. A NULL scope
-- is not visible then. The SECURITY DEFINER functions run as the owner,
-- whom PostgreSQL exempts from the policies, so they filter and check
-- with this: claim_task claims only tasks of visible scopes, the task
-- functions, dismiss_finding and restore_finding treat a task or finding
-- of another scope as unknown (LD005), and _check_scope_access refuses a
-- write (LD401). Raises nothing.
CREATE OR REPLACE FUNCTION ledger._scope_visible(p_scope text)
RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.scope'::pg_catalog.regclass) THEN
        RETURN true;
    END IF;
    RETURN coalesce(p_scope = ANY (ledger._visible_scopes()), false);
END
$$;

COMMENT ON FUNCTION ledger._scope_visible(text) IS
'Whether the connection may use a scope: true while per-scope row-level security is off, else only for scopes listed in ledger.scopes (every caller, the owner included; NULL -> false). (scope text) -> boolean. Used by the SECURITY DEFINER functions, which the policies do not restrict. Raises nothing.';
