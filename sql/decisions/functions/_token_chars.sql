-- ledger._token_chars() -> text
--
-- The word characters of a message token, as the inside of a bracket
-- expression ('A-Za-z0-9_\u00C0-...'): ASCII letters, digits, '_', and
-- letters outside ASCII (U+00C0-U+1FFF except U+00D7/U+00F7, U+2C00-U+2DFF,
-- U+3040-U+D7FF, U+F900-U+FDFF, U+FE70-U+FEFE, fullwidth letters and
-- digits). The one place the class is written: ledger._token_regex (a
-- token) and ledger._token_split_regex (the separators between tokens) are
-- built from it. Spelled out instead of [[:alnum:]] so that it does not
-- depend on the database's LC_CTYPE. A SQL function without FROM: inlined,
-- and folded to a constant where its callers are planned. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._token_chars()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT 'A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u1FFF\u2C00-\u2DFF\u3040-\uD7FF\uF900-\uFDFF\uFE70-\uFEFE\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A'::text
$$;

COMMENT ON FUNCTION ledger._token_chars() IS
'The word characters of a message token as the inside of a bracket expression (ASCII alphanumerics, _, non-ASCII letters): the one definition ledger._token_regex and ledger._token_split_regex are built from. () -> text. Independent of LC_CTYPE. Raises nothing.';
