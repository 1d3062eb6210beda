-- ledger.enable_scope_rls() -> SETOF regclass
--
-- Turns per-scope row-level security on for this database (a deployment
-- that hosts several tenants): ENABLE ROW LEVEL SECURITY on every ledger
-- table that carries a policy named scope_isolation (scope, finding,
-- merge, supersession, issue, agent_task, injection, and any later table
-- given one), and returns them.
-- From then on every role but the table owner (and superusers, BYPASSRLS
-- roles) sees and writes only the scopes named in the session setting
-- ledger.scopes ('spec-07,spec-08'); unset means none. Writes into another
-- scope get LD401 from the _050_scope_access triggers, for every role.
-- Idempotent. Needs ownership of the tables: run it as the role that ran the
-- migrations (EXECUTE is granted to no ledger role). Takes a short ACCESS
-- EXCLUSIVE lock on each table. Undo with ledger.disable_scope_rls().
-- Raises 42501 (insufficient_privilege) when the caller is not the owner.
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
