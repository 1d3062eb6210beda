CREATE OR REPLACE FUNCTION ledger._text_kept(p_value text, p_max_length integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.length(p_value) OPERATOR(pg_catalog.<=) p_max_length
       AND p_value OPERATOR(pg_catalog.~) '^[^\x01-\x20\x7f]([^\x01-\x1f\x7f]*[^\x01-\x20\x7f])?$'
$$;

COMMENT ON FUNCTION ledger._text_kept(text, integer) IS
'Whether ledger._check_text (one line, that length limit) would return a value unchanged: short enough, no control character, nothing to trim; NULL for NULL. (value, max_length) -> boolean. Inlined. Raises nothing.';
