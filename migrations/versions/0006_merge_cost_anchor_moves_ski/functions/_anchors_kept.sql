CREATE OR REPLACE FUNCTION ledger._anchors_kept(p_anchors jsonb, p_paths text[])
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(
        p_anchors::pg_catalog.text OPERATOR(pg_catalog.~)
            '^\{"(?:[^"\\]|\\.)*": \[[0-9]{1,10}, [0-9]{1,10}\](?:, "(?:[^"\\]|\\.)*": \[[0-9]{1,10}, [0-9]{1,10}\])*\}$'
        AND pg_catalog.array_ndims(p_paths) OPERATOR(pg_catalog.=) 1
        AND (p_anchors OPERATOR(pg_catalog.-) p_paths) OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb
        AND NOT pg_catalog.jsonb_path_exists(p_anchors,
                    'strict $.* ? (@[0] < 1 || @[1] < @[0] || @[1] > 2147483647)', '{}', true)
        AND NOT pg_catalog.jsonb_path_exists(p_anchors, 'strict $.keyvalue() ? (@.key like_regex "/$")', '{}', true),
        false)
$$;

COMMENT ON FUNCTION ledger._anchors_kept(jsonb, text[]) IS
'Whether anchors are kept as written: a non-empty object whose keys are each one of the (one-dimensional, normalised) paths and not a directory, and whose values are [first, last] of 1-10 digit integers with 1 <= first <= last <= 2147483647. (anchors jsonb, paths text[]) -> boolean; NULLs give false. Asked by the WHEN condition of trigger _100_prepare_update and by tg_finding__prepare; inlined. Raises nothing.';
