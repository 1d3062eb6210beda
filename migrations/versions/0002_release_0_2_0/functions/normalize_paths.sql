CREATE OR REPLACE FUNCTION ledger.normalize_paths(p_paths text[], p_field text DEFAULT 'paths', p_max integer DEFAULT 100000)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_out text[];
BEGIN
    IF p_paths IS NULL OR cardinality(p_paths) = 0 THEN
        RETURN '{}'::text[];
    END IF;
    IF array_ndims(p_paths) > 1 THEN
        RAISE EXCEPTION 'invalid %: a %-dimensional array (%); paths are a one-dimensional text[] such as ''{a.py,b.py}''',
            p_field, array_ndims(p_paths), left(p_paths::text, 100) USING ERRCODE = 'LD003';
    END IF;
    IF array_lower(p_paths, 1) <> 1 THEN
        RAISE EXCEPTION 'invalid %: the array starts at index % (%); arrays of paths start at 1',
            p_field, array_lower(p_paths, 1), left(p_paths::text, 100) USING ERRCODE = 'LD003';
    END IF;
    IF cardinality(p_paths) > p_max THEN
        RAISE EXCEPTION 'invalid %: % paths, at most % are accepted', p_field, cardinality(p_paths), p_max
            USING ERRCODE = 'LD004';
    END IF;
    -- Fast path: every element already normal and distinct (the common case
    -- for generated paths) -> return the array unchanged. The patterns are
    -- the negation of every rewrite and rejection rule of normalize_path.
    IF (SELECT bool_and(length(p) <= 4096
                        AND p ~ ('^[^/"\\' || ledger._unicode_class('white_space') || ']')
                        AND p !~ ('[\\' || ledger._unicode_class('control') || ledger._unicode_class('format')
                                  || ']|//|(^|/)\.\.?(/|$)|:[0-9]+(:[0-9]+)?$|^[A-Za-z]:(/|$)|['
                                  || ledger._unicode_class('white_space') || ']$')
                        AND p IS NFC NORMALIZED)
               AND count(DISTINCT p) = count(*)
          FROM unnest(p_paths) AS p) THEN
        RETURN p_paths;
    END IF;
    SELECT coalesce(array_agg(p ORDER BY first_ord), '{}') INTO v_out
    FROM (
        SELECT ledger.normalize_path(raw, p_field || '[' || ord || ']') AS p, min(ord) AS first_ord
        FROM unnest(p_paths) WITH ORDINALITY AS t(raw, ord)
        GROUP BY 1
    ) s;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger.normalize_paths(text[], text, integer) IS
'Normalise a path array: each element through normalize_path, duplicates collapsed (first position kept), NULL -> {}; one-dimensional with lower bound 1. (text[], field text, max integer) -> text[]. Raises LD001 naming field[index] and value; LD003 for a multi-dimensional array or a lower bound other than 1; LD004 above max elements.';
