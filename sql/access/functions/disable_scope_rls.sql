-- ledger.disable_scope_rls() -> SETOF regclass
--
-- Turns per-scope row-level security off again (the default after the
-- migrations): DISABLE ROW LEVEL SECURITY on every ledger table that carries
-- a policy named scope_isolation, and returns them. The policies stay, inert.
-- Idempotent. Owner only (EXECUTE is granted to no ledger role); takes a
-- short ACCESS EXCLUSIVE lock on each table.
-- Raises 42501 (insufficient_privilege) when the caller is not the owner.
CREATE OR REPLACE FUNCTION ledger.disable_scope_rls()
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
        EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', v_table);
        RETURN NEXT v_table;
    END LOOP;
END
$$;

COMMENT ON FUNCTION ledger.disable_scope_rls() IS
'Turn per-scope row-level security off: DISABLE ROW LEVEL SECURITY on every ledger table with a scope_isolation policy (the policies stay). () -> SETOF regclass. Owner only; raises 42501 otherwise.';
