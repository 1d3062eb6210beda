-- ledger._path_keys(p_path text) -> text[]
--
-- The lookup keys under which a touched path finds the findings that
-- reference it: the path itself and every ancestor directory, each with a
-- trailing '/'. 'src/a/b.py' -> {src/a/b.py, src/, src/a/}.
-- A finding path equal to one of these keys matches the touched path: an exact
-- file match, or a directory reference that is a prefix of the touched path at
-- a '/' boundary ('src/a/' matches 'src/a/b.py', never 'src/ab.py').
-- Implements the path rule of seed 000 ("Option A": supersede findings that
-- reference a file or path the merge touched). Input must already be
-- normalised (ledger.normalize_path). Raises nothing; STRICT.
CREATE OR REPLACE FUNCTION ledger._path_keys(p_path text)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT pg_catalog.array_prepend(
        p_path,
        ARRAY(
            SELECT pg_catalog.array_to_string(v_parts[1:n], '/') || '/'
            FROM (SELECT pg_catalog.string_to_array(p_path, '/') AS v_parts) s,
                 pg_catalog.generate_series(1, pg_catalog.cardinality(s.v_parts) - 1) AS n
            WHERE v_parts[n] <> ''
        )
    )
$$;

COMMENT ON FUNCTION ledger._path_keys(text) IS
'Lookup keys of a normalised touched path: the path and each ancestor directory with a trailing slash. text -> text[]. Raises nothing. Implements the path rule of seed 000 Option A.';
