CREATE OR REPLACE FUNCTION ledger._insert_merges(p_scope text, p_merges jsonb)
RETURNS TABLE (id bigint, commit_sha text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    INSERT INTO ledger.merge AS m (scope, commit_sha, paths, message, node_id, merged_at, branch, added,
                                   deleted, hunks)
    SELECT p_scope,
           e.elem ->> 'commit_sha',
           coalesce(ARRAY(SELECT jsonb_array_elements_text(e.elem -> 'paths')), '{}'),
           coalesce(e.elem ->> 'message', ''),
           e.elem ->> 'node_id',
           (e.elem ->> 'merged_at')::timestamptz,
           e.elem ->> 'branch',
           CASE WHEN jsonb_typeof(e.elem -> 'added') = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(e.elem -> 'added')) END,
           CASE WHEN jsonb_typeof(e.elem -> 'deleted') = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(e.elem -> 'deleted')) END,
           CASE WHEN jsonb_typeof(e.elem -> 'hunks') = 'object' THEN e.elem -> 'hunks' END
      FROM jsonb_array_elements(p_merges) WITH ORDINALITY AS e(elem, i)
     ORDER BY e.i
    ON CONFLICT (scope, commit_sha) DO NOTHING
    RETURNING m.id, m.commit_sha;
END
$$;

COMMENT ON FUNCTION ledger._insert_merges(text, jsonb) IS
'record_merges'' multi-row INSERT of merges (ON CONFLICT (scope, commit_sha) DO NOTHING), in array order. (scope, merges jsonb array of merge objects) -> TABLE(id, commit_sha) of the rows inserted. Raises what a merge row raises.';
