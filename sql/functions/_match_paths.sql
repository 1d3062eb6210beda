-- ledger._match_paths(p_scope text, p_paths text[]) ->
--     TABLE(finding_id bigint, finding_path text, touched_path text)
--
-- The active findings of p_scope that reference any of the touched paths
-- p_paths (already normalised), one row per finding with the first matching
-- pair (smallest touched path, then finding path) as evidence. A finding path
-- matches a touched path when it is equal to it (file) or is a directory
-- reference ('.../') that is a prefix of it at a '/' boundary. Findings with
-- no paths never match.
--
-- Cost: one btree probe of ledger.finding_path (its primary key, scope and
-- path) per distinct key, i.e. per touched path and ancestor directory; it
-- grows linearly with the touched paths and with the matches, not with the
-- number of findings. ledger.finding_path holds only active findings, which
-- the finding triggers keep so. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._match_paths(p_scope text, p_paths text[])
RETURNS TABLE (finding_id bigint, finding_path text, touched_path text)
LANGUAGE sql STABLE
SET search_path = pg_catalog
-- A handful of index probes: parallel workers only add start-up cost.
SET max_parallel_workers_per_gather = 0
AS $$
    WITH keys AS (
        -- each touched path and each of its ancestor directories ('a/b/c.py'
        -- -> 'a/', 'a/b/', 'a/b/c.py'), set-based rather than per-path calls
        SELECT DISTINCT
               array_to_string(a.parts[1:n], '/')
                   || CASE WHEN n < cardinality(a.parts) THEN '/' ELSE '' END AS key,
               t.path AS touched
        FROM unnest(p_paths) AS t(path),
             LATERAL (SELECT string_to_array(t.path, '/') AS parts) AS a,
             generate_series(1, cardinality(a.parts)) AS n
        WHERE a.parts[n] <> ''
    ), hits AS (
        -- one btree probe of finding_path_pkey per distinct key
        SELECT fp.finding_id, fp.path
        FROM ledger.finding_path fp
        WHERE fp.scope = p_scope AND fp.path = ANY (ARRAY(SELECT DISTINCT keys.key FROM keys))
    )
    SELECT DISTINCT ON (h.finding_id) h.finding_id, h.path, keys.touched
    FROM hits h
    JOIN keys ON keys.key = h.path
    ORDER BY h.finding_id, keys.touched, h.path
$$;

COMMENT ON FUNCTION ledger._match_paths(text, text[]) IS
'Active findings of a scope referencing any touched path (exact file, or directory prefix at a / boundary), with the first matching (finding_path, touched_path) pair as evidence. (scope text, paths text[]) -> TABLE(finding_id bigint, finding_path text, touched_path text). Index-driven (btree probes of ledger.finding_path). Raises nothing.';
