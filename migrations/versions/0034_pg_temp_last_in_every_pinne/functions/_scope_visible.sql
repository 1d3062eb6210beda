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
