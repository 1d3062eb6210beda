CREATE OR REPLACE FUNCTION ledger._unquote_path(p_quoted text, p_field text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_parts text[] := regexp_match(p_quoted, '^"((?:[^"\\]|\\.)*)"((?::[0-9]+)*)$');
    v_bad   text;
    v_bytes bytea;
    v_hint  constant text := 'git quotes unusual paths ("docs/caf\303\251.md"): read them with git''s -z option '
                             '(NUL-separated, never quoted) or set core.quotePath=false, or write the path unquoted.';
BEGIN
    IF v_parts IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: % starts with a double quote but is not one C-quoted path '
                        '(a closing quote, then at most :line[:col])', p_field, quote_literal(p_quoted)
            USING ERRCODE = 'LD001', HINT = v_hint;
    END IF;
    -- tokens: a run of plain characters, or one escape
    SELECT t.m[1] INTO v_bad
      FROM regexp_matches(v_parts[1], '(\\(?:[0-3][0-7][0-7]|[abtnvfr"\\]|.?))|[^\\]+', 'g') AS t(m)
     WHERE t.m[1] IS NOT NULL AND t.m[1] !~ '^\\([0-3][0-7][0-7]|[abtnvfr"\\])$'
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'invalid path in %: % has the escape % that git does not write', p_field,
            quote_literal(p_quoted), quote_literal(v_bad)
            USING ERRCODE = 'LD001', HINT = v_hint;
    END IF;
    SELECT string_agg(
               CASE
                   WHEN t.m[1] IS NULL THEN convert_to(t.m[2], 'UTF8')
                   WHEN t.m[1] ~ '^\\[0-3]' THEN
                       set_byte('\x00'::bytea, 0,
                                (substr(t.m[1], 2, 1)::integer * 64 + substr(t.m[1], 3, 1)::integer * 8
                                 + substr(t.m[1], 4, 1)::integer))
                   ELSE decode(CASE substr(t.m[1], 2, 1)
                                   WHEN 'a' THEN '07' WHEN 'b' THEN '08' WHEN 't' THEN '09' WHEN 'n' THEN '0a'
                                   WHEN 'v' THEN '0b' WHEN 'f' THEN '0c' WHEN 'r' THEN '0d'
                                   WHEN '"' THEN '22' ELSE '5c' END, 'hex')
               END, ''::bytea ORDER BY t.o)
      INTO v_bytes
      FROM regexp_matches(v_parts[1], '(\\(?:[0-3][0-7][0-7]|[abtnvfr"\\]))|([^\\]+)', 'g')
           WITH ORDINALITY AS t(m, o);
    BEGIN
        RETURN convert_from(coalesce(v_bytes, ''::bytea), 'UTF8') || v_parts[2];
    EXCEPTION WHEN character_not_in_repertoire OR untranslatable_character THEN
        RAISE EXCEPTION 'invalid path in %: % does not unquote to UTF-8 text', p_field, quote_literal(p_quoted)
            USING ERRCODE = 'LD001', HINT = v_hint;
    END;
END
$$;

COMMENT ON FUNCTION ledger._unquote_path(text, text) IS
'Undo git''s C-style path quoting ("docs/caf\303\251.md" -> docs/café.md): \a \b \t \n \v \f \r \" \\ and \ooo octal bytes, decoded as UTF-8; an optional :line[:col] after the closing quote is kept. (quoted text, field text) -> text. Raises LD001 naming the field and value for an unterminated quote, trailing text, an escape git does not write, or bytes that are not UTF-8.';
