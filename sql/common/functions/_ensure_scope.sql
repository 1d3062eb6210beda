-- ledger._ensure_scope(p_scope text) -> void
--
-- Creates the scope row with its defaults (hygiene_mode 'on') the first time
-- a finding or merge names it. Safe under concurrency: two writers naming a
-- new scope at once both succeed (ON CONFLICT DO NOTHING). The caller has
-- validated p_scope. Raises nothing of its own.
-- SET enable_seqscan = off: the lookup is an index probe of scope_pkey
-- whatever the statistics say. A generic plan made while ledger.scope was
-- analysed small would scan the table for every row of a statement that
-- creates thousands of scopes (O(N^2) in new scopes); scope_pkey is the only
-- index, so no other plan competes.
CREATE OR REPLACE FUNCTION ledger._ensure_scope(p_scope text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        INSERT INTO ledger.scope (scope) VALUES (p_scope) ON CONFLICT DO NOTHING;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._ensure_scope(text) IS
'Create a scope with default policy the first time it is named. text -> void. Raises nothing.';
