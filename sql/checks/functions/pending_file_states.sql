-- ledger.pending_file_states(p_scope text DEFAULT NULL) -> SETOF ledger.pending_file_state
--
-- The file-state requests still waiting for an answer
-- (ledger.pending_file_state: merge_id, commit_sha, scope, finding_id,
-- paths, requested_at, request_id) of p_scope, or of every scope the
-- connection may see when p_scope is NULL, in merge order, then finding
-- order: what a writer reads to answer with ledger.record_file_states.
-- Raises LD005 (not_found) when p_scope does not exist or the connection
-- may not see it (per-scope row-level security), so a misspelt scope is an
-- error rather than an empty list. Runs with the caller's rights (the
-- view's row-level security applies).
CREATE OR REPLACE FUNCTION ledger.pending_file_states(p_scope text DEFAULT NULL)
RETURNS SETOF ledger.pending_file_state
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF p_scope IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ledger.scope s WHERE s.scope = p_scope) THEN
        RAISE EXCEPTION 'unknown scope: %', quote_literal(p_scope) USING ERRCODE = 'LD005';
    END IF;
    RETURN QUERY
        SELECT p.* FROM ledger.pending_file_state p
         WHERE p_scope IS NULL OR p.scope = p_scope
         ORDER BY p.merge_id, p.finding_id;
END
$$;

COMMENT ON FUNCTION ledger.pending_file_states(text) IS
'Pending file-state requests of a scope (NULL: every visible scope) in merge order: (merge_id, commit_sha, scope, finding_id, paths, requested_at, request_id), as ledger.pending_file_state. Answer with ledger.record_file_states(merge_id, states). (scope text) -> SETOF ledger.pending_file_state. Raises LD005 for an unknown scope.';
