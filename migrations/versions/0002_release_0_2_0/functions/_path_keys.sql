CREATE OR REPLACE FUNCTION ledger._path_keys(p_paths text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_paths text[] := array_remove(coalesce(p_paths, '{}'), NULL);
    v_keys  text[] := v_paths;
    v_path  text;
    v_rest  text;
    v_at    integer;
    v_j     integer;
BEGIN
    FOREACH v_path IN ARRAY v_paths LOOP
        v_at := 0;
        v_rest := v_path;
        LOOP
            v_j := strpos(v_rest, '/');
            EXIT WHEN v_j = 0;
            v_at := v_at + v_j;
            v_rest := substr(v_rest, v_j + 1);
            EXIT WHEN v_rest = '';  -- the path is itself a directory, already a key
            v_keys := v_keys || left(v_path, v_at);
        END LOOP;
    END LOOP;
    RETURN v_keys;
END
$$;

COMMENT ON FUNCTION ledger._path_keys(text[]) IS
'The finding_path keys of touched paths: each path and its ancestor directories (trailing /), possibly repeated; the key set of ledger._match_changes. (text[]) -> text[]. Raises nothing.';
