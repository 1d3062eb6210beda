CREATE OR REPLACE FUNCTION ledger.enable_scope_rls()
RETURNS SETOF regclass
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_table regclass;
BEGIN
    FOR v_table IN
        SELECT DISTINCT p.polrelid::regclass
          FROM pg_catalog.pg_policy p
          JOIN pg_catalog.pg_class c ON c.oid = p.polrelid
         WHERE c.relnamespace = 'ledger'::pg_catalog.regnamespace AND p.polname = 'scope_isolation'
         ORDER BY 1
    LOOP
        EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', v_table);
        RETURN NEXT v_table;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.enable_scope_rls() IS
'Turn per-scope row-level security on: ENABLE ROW LEVEL SECURITY on every ledger table with a scope_isolation policy; non-owner roles then see and write only the scopes in the setting ledger.scopes. () -> SETOF regclass (the tables). Owner only; raises 42501 otherwise.';
