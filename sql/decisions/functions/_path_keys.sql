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
-- paid for nothing. NULL elements are left out. A PL/pgSQL
-- loop of strpos over each path (no string_to_array / array_to_string per
-- prefix, no DISTINCT sort; its cost is in docs/performance.md).
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
