-- ledger._path_keys(p_paths text[]) -> text[]
--
-- The keys under which ledger.finding_path is probed for a merge's touched
-- paths (normalised): each path itself and each of its ancestor
-- directories with a trailing '/' ('src/pkg/a.py' -> {src/, src/pkg/,
-- src/pkg/a.py}), distinct. The same key set as ledger._match_changes
-- builds for its probe; used by the statement trigger
-- ledger.tg_merge__supersede to skip merges that touch nothing an active
-- finding references. STABLE, as array_to_string is; not inlined (its body
-- is a sub-select), so it is planned on every call: 0.06 ms, and 0.7 ms to
-- run for 100 paths (docs/performance.md).
-- NULL or '{}' -> '{}'. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._path_keys(p_paths text[])
RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(
        SELECT DISTINCT pg_catalog.array_to_string(a.parts[1:n], '/')
                        OPERATOR(pg_catalog.||) CASE WHEN n < pg_catalog.cardinality(a.parts) THEN '/' ELSE '' END
          FROM pg_catalog.unnest(p_paths) AS t(path),
               LATERAL (SELECT pg_catalog.string_to_array(t.path, '/') AS parts) AS a,
               pg_catalog.generate_series(1, pg_catalog.cardinality(a.parts)) AS n
         WHERE a.parts[n] OPERATOR(pg_catalog.<>) '')
$$;

COMMENT ON FUNCTION ledger._path_keys(text[]) IS
'The finding_path keys of touched paths: each path and its ancestor directories (trailing /), distinct; the key set of ledger._match_changes. (text[]) -> text[]. Raises nothing.';
