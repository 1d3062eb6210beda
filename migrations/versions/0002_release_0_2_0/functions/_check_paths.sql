CREATE OR REPLACE FUNCTION ledger._check_paths(p_check jsonb)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT coalesce(array_agg(DISTINCT x.p ORDER BY x.p), '{}')
      FROM (SELECT v #>> '{}' AS p FROM jsonb_path_query(p_check, 'strict $.**.path_exists') AS v
            UNION ALL
            SELECT v #>> '{}' FROM jsonb_path_query(p_check, 'strict $.**.path_absent') AS v
            UNION ALL
            SELECT v #>> '{}' FROM jsonb_path_query(p_check, 'strict $.**.file_contains.path') AS v
            UNION ALL
            SELECT v #>> '{}' FROM jsonb_path_query(p_check, 'strict $.**.file_lacks.path') AS v) AS x
     WHERE p_check IS NOT NULL
$$;

COMMENT ON FUNCTION ledger._check_paths(jsonb) IS
'The distinct, sorted paths a normalised finding check names (path_exists, path_absent, file_contains.path, file_lacks.path at any depth; directories end in /). (check jsonb) -> text[]; NULL -> {}. Raises nothing.';
