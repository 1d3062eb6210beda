CREATE OR REPLACE FUNCTION ledger._object_ends(p_gap text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT p_gap IS NULL
        OR p_gap ~ '[.,;:!?()\[\]{}<>"“”«»—–…#|]'
        OR p_gap ~ '(^|\s)-+(\s|$)'
$$;

COMMENT ON FUNCTION ledger._object_ends(text) IS
'Whether the gap after a phrase ends the object of a verb: NULL (end of paragraph), or punctuation . , ; : ! ? brackets, double quotes, dashes, ellipsis, # or |; not white space alone, an apostrophe or /. (gap text) -> boolean. Raises nothing.';
