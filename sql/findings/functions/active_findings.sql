-- ledger.active_findings(p_scope text) -> SETOF ledger.active_finding
--
-- The active findings of one scope in prompt order: most severe first
-- (critical, high, medium, low, info), then newest first, then id.
-- Raises LD005 (not_found) when the scope does not exist, so a mistyped scope
-- is an error rather than an empty prompt.
CREATE OR REPLACE FUNCTION ledger.active_findings(p_scope text)
RETURNS SETOF ledger.active_finding
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_nullable(p_scope) USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT a.* FROM ledger.active_finding a
         WHERE a.scope = p_scope
         ORDER BY ledger._severity_rank(a.severity), a.created_at DESC, a.id DESC;
END
$$;

COMMENT ON FUNCTION ledger.active_findings(text) IS
'Active findings of one scope in prompt order (severity, then newest). text -> SETOF ledger.active_finding. Raises LD005 for an unknown scope.';
