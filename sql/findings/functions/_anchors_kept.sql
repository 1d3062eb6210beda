-- ledger._anchors_kept(p_anchors jsonb, p_paths text[]) -> boolean
--
-- Whether anchors written on a finding are kept exactly as given: a
-- non-empty object whose every key is one of p_paths (the finding's
-- normalised paths, one-dimensional; so ledger.normalize_path would return
-- each key unchanged) and not a directory (ending in /), and whose every
-- value is [first, last], 1-10 digit integers as jsonb prints them (no
-- fraction, exponent or sign) with 1 <= first <= last <= 2147483647. What a
-- merge's anchor move writes. Anything else (NULL included: false) goes
-- through ledger.tg_finding__prepare's check of each key, which normalises
-- it or raises. The one definition of that test: the WHEN condition of the
-- finding trigger _100_prepare_update (an update of nothing but such
-- anchors does not call the function) and the function itself ask it.
-- No query: a regular expression over the object's text, jsonb minus the
-- paths, and two strict jsonpath tests (strict: an array is not unwrapped,
-- so @[0] is the first line; silent: an error is false). No SET clause and
-- every name qualified, so PostgreSQL inlines it into the caller's
-- expression (EXECUTE is still checked: granted to ledger_writer and
-- ledger_admin, whose rows the trigger prepares). Raises nothing.
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
