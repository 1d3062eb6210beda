-- ledger._object_ends(p_gap text) -> boolean
--
-- Whether the separator text after a phrase ends the object of a verb
-- ("a title phrase counts only as the whole object of the verb"):
-- true for NULL (the phrase ends its paragraph) and for a gap holding
-- sentence or clause punctuation or the start of a reference: . , ; : ! ?
-- brackets ( ) [ ] { } < >, straight or curly double quotes, guillemets,
-- dashes (—, –, or a hyphen between spaces), an ellipsis, '#' or '|'.
-- False for white space alone (the sentence goes on: 'Fixes Login fails on
-- Safari 15') and for an apostrophe ('Safari's') or a '/' ('Safari/iOS'),
-- which continue the phrase. Raises nothing.
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
