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
