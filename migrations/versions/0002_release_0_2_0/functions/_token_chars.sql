CREATE OR REPLACE FUNCTION ledger._token_chars()
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT 'A-Za-z0-9_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u1FFF\u2C00-\u2DFF\u3040-\uD7FF\uF900-\uFDFF\uFE70-\uFEFE\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A'::text
$$;

COMMENT ON FUNCTION ledger._token_chars() IS
'The word characters of a message token as the inside of a bracket expression (ASCII alphanumerics, _, non-ASCII letters): the one definition ledger._token_regex and ledger._token_split_regex are built from. () -> text. Independent of LC_CTYPE. Raises nothing.';
