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
