-- ledger._scoped_paths(p_scope text, p_paths text[]) -> text[]
--
-- Each path prefixed with its scope and a U+001F separator, so that one GIN
-- index (finding_active_paths_idx) answers "active findings of scope S that
-- reference any of these paths" without touching other scopes. Scopes and
-- paths never contain control characters (the prepare triggers reject them),
-- so the separator cannot collide. Raises nothing.
-- It has no SET search_path (that would stop the planner from inlining it and
-- matching the index expression cheaply), so every operator and function in
-- it is schema-qualified: the index expression is evaluated with the search
-- path of whoever inserts a finding, and a same-named operator of theirs
-- must not change the index keys.
CREATE OR REPLACE FUNCTION ledger._scoped_paths(p_scope text, p_paths text[])
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT ARRAY(SELECT (p_scope OPERATOR(pg_catalog.||) E'\x1f') OPERATOR(pg_catalog.||) p
                   FROM pg_catalog.unnest(p_paths) AS p)
$$;

COMMENT ON FUNCTION ledger._scoped_paths(text, text[]) IS
'Index key of a finding''s paths: scope || U+001F || path for each path. (text, text[]) -> text[]. Raises nothing.';
