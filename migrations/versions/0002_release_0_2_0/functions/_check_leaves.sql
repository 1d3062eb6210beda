CREATE OR REPLACE FUNCTION ledger._check_leaves(p_check jsonb)
RETURNS TABLE (ord integer, part text, key text, path text, pattern text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
    WITH RECURSIVE node(value, part, sort) AS (
        SELECT p_check, ''::text, ARRAY[]::integer[]
         WHERE jsonb_typeof(p_check) = 'object'
        UNION ALL
        SELECT e.value, n.part || kv.key || '[' || (e.i - 1) || '].', n.sort || e.i::integer
          FROM node AS n
         CROSS JOIN LATERAL jsonb_each(n.value) AS kv
         CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(kv.value) = 'array' THEN kv.value
                                                      ELSE '[]'::jsonb END) WITH ORDINALITY AS e(value, i)
         WHERE jsonb_typeof(n.value) = 'object' AND kv.key IN ('all', 'any')
    )
    SELECT (row_number() OVER (ORDER BY n.sort))::integer, n.part || kv.key, kv.key,
           kv.value ->> 'path', kv.value ->> 'pattern'
      FROM node AS n
     CROSS JOIN LATERAL jsonb_each(n.value) AS kv
     WHERE jsonb_typeof(n.value) = 'object' AND kv.key IN ('file_contains', 'file_lacks')
       AND jsonb_typeof(kv.value) = 'object' AND jsonb_typeof(kv.value -> 'pattern') = 'string'
     ORDER BY n.sort
$$;

COMMENT ON FUNCTION ledger._check_leaves(jsonb) IS
'The file_contains / file_lacks parts of a check in document order: (check jsonb) -> rows (ord integer, part text as ledger._eval_check names parts, e.g. all[1].file_lacks, key text, path text, pattern text), as written. Raises nothing.';
