-- ledger._path_keys(p_paths text[]) -> text[]
--
-- The keys under which ledger.finding_path is probed for a merge's touched
-- paths (normalised, as ledger.normalize_paths leaves them: no leading '/',
-- no '//'): each path itself and each of its ancestor
-- directories with a trailing '/' ('src/pkg/a.py' -> {src/pkg/a.py, src/,
-- src/pkg/}). The one builder of these keys: ledger._match_changes probes
-- with them, and the statement trigger ledger.tg_merge__supersede uses them
-- to skip merges that touch nothing an active finding references. A key may occur
-- more than once (two paths in one directory): ledger._match_changes joins
-- the keys to finding_path and groups what it finds by (finding, path), and
-- the trigger only asks whether one is found, so sorting them here would be
-- paid for nothing. NULL elements are left out. A PL/pgSQL loop over each
-- path's parts (string_to_array once per path that has a '/'), each
-- directory its parent's key plus one part, appended in place (no
-- array_to_string per prefix, no DISTINCT sort; its cost is in
-- docs/performance.md).
-- NULL or '{}' -> '{}'. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._path_keys(p_paths text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_paths text[] := array_remove(coalesce(p_paths, '{}'), NULL);
    v_keys  text[] := v_paths;
    v_path  text;
    v_parts text[];
    v_dir   text;
    v_n     integer;
BEGIN
    FOREACH v_path IN ARRAY v_paths LOOP
        CONTINUE WHEN strpos(v_path, '/') = 0;
        v_parts := string_to_array(v_path, '/');
        -- a directory for every '/' but one that ends the path (the path is
        -- then itself a directory, already a key)
        v_n := cardinality(v_parts) - CASE WHEN v_parts[cardinality(v_parts)] = '' THEN 2 ELSE 1 END;
        v_dir := '';
        FOR i IN 1 .. v_n LOOP
            v_dir := v_dir || v_parts[i] || '/';
            v_keys := v_keys || v_dir;
        END LOOP;
    END LOOP;
    RETURN v_keys;
END
$$;

COMMENT ON FUNCTION ledger._path_keys(text[]) IS
'The finding_path keys of touched paths: each path and its ancestor directories (trailing /), possibly repeated; the key set of ledger._match_changes. (text[]) -> text[]. Raises nothing.';
