-- ledger.normalize_path(p_path text, p_field text DEFAULT 'path') -> text
--
-- Normalises one repository-relative path, or rejects it. Rules:
--   1. surrounding white space is trimmed: Unicode White_Space (space, tab,
--      CR, LF, form feed, vertical tab, U+0085, no-break space U+00A0, the
--      U+2000-U+200A spaces, U+2028, U+2029, U+202F, U+205F, U+3000, U+1680);
--   2. a path that starts with '"' is git's C-quoted form and is unquoted
--      (ledger._unquote_path: "docs/caf\303\251.md" -> docs/café.md), or
--      rejected when it is not one well-formed quoted path;
--   3. the text is put in Unicode NFC (macOS file systems write NFD: a
--      decomposed 'é' and the composed one are the same path);
--   then, applied again until nothing changes (so the result is a fixpoint:
--   normalising it again gives it back, and it is never a path this
--   function would reject):
--   4. surrounding white space is trimmed again, backslashes become '/';
--   5. trailing ':line' / ':line:col' suffixes are dropped
--      (src/a.py:42:10 -> src/a.py), then white space before them;
--   6. '.' segments and repeated '/' disappear (./a//b/./c -> a/b/c);
--   7. a trailing '/' is kept: it marks a directory reference.
-- Rejected with SQLSTATE LD001 (path_rejected), the message naming p_field and
-- the value: NULL, empty after normalisation (white space only, a no-break
-- space included), absolute ('/x', '//x', 'C:/x', also when a pass makes it
-- so: './C:/x'), a '..' segment, a control character (U+0001-U+001F,
-- U+007F-U+009F, U+2028, U+2029) or a format character (Unicode category
-- Cf: zero-width space and joiners, bidirectional marks, embeddings,
-- overrides and isolates, soft hyphen, BOM, ...) anywhere, a malformed
-- C-quoted path, a result that starts with '"' (so that a stored path is
-- never read as quoted: a file name beginning with a double quote is not
-- supported), or longer than 4096 characters.
-- The character classes come from ledger._unicode_class, independent of the
-- database's locale. Implements the path normalisation of the foundation
-- issue (the drift-review scenario's paths arrive from reviewers as 'packages/x/',
-- './src/a.py:12', 'src\win.py'). The rules repeat to a fixpoint because one
-- pass does not normalise 'a.py :3', 'a:1:2:3' or './ a'.
CREATE OR REPLACE FUNCTION ledger.normalize_path(p_path text, p_field text DEFAULT 'path')
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_trim constant text := '^[' || ledger._unicode_class('white_space') || ']+|['
                            || ledger._unicode_class('white_space') || ']+$';
    v_path text;
    v_prev text;
    v_dir  boolean;
BEGIN
    IF p_path IS NULL THEN
        RAISE EXCEPTION 'invalid path in %: NULL is not a path', p_field
            USING ERRCODE = 'LD001', HINT = 'Leave a NULL out of the array instead.';
    END IF;
    IF length(p_path) > 4096 THEN
        RAISE EXCEPTION 'invalid path in %: "%..." is longer than 4096 characters', p_field, left(p_path, 60)
            USING ERRCODE = 'LD001';
    END IF;
    v_path := regexp_replace(p_path, v_trim, '', 'g');
    IF left(v_path, 1) = '"' THEN
        v_path := ledger._unquote_path(v_path, p_field);
    END IF;
    IF v_path ~ ('[' || ledger._unicode_class('control') || ']') THEN
        RAISE EXCEPTION 'invalid path in %: % contains a control character', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    IF v_path ~ ('[' || ledger._unicode_class('format') || ']') THEN
        v_prev := to_hex(ascii(substring(v_path FROM '[' || ledger._unicode_class('format') || ']')));
        RAISE EXCEPTION 'invalid path in %: % contains an invisible format character (U+%)', p_field,
            quote_literal(p_path), upper(lpad(v_prev, greatest(4, length(v_prev)), '0'))
            USING ERRCODE = 'LD001',
                  HINT = 'Zero-width, bidirectional-control and other format characters (Unicode Cf) make two different paths look alike.';
    END IF;
    v_path := normalize(v_path, NFC);
    LOOP
        v_prev := v_path;
        v_path := replace(regexp_replace(v_path, v_trim, '', 'g'), '\', '/');
        IF v_path ~ '^/' OR v_path ~ '^[A-Za-z]:/' OR v_path ~ '^[A-Za-z]:$' THEN
            RAISE EXCEPTION 'invalid path in %: % is absolute; paths are relative to the repository root',
                p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        v_path := regexp_replace(regexp_replace(v_path, '(:[0-9]+)+$', ''), v_trim, '', 'g');
        v_dir := v_path ~ '/$';
        -- drop '.' and empty segments, keep the rest in order
        SELECT string_agg(seg, '/' ORDER BY ord) INTO v_path
        FROM unnest(string_to_array(v_path, '/')) WITH ORDINALITY AS t(seg, ord)
        WHERE seg <> '' AND seg <> '.';
        IF v_path IS NULL THEN
            RAISE EXCEPTION 'invalid path in %: % is empty once normalised', p_field, quote_literal(p_path)
                USING ERRCODE = 'LD001';
        END IF;
        IF v_dir THEN
            v_path := v_path || '/';
        END IF;
        -- each changing pass makes the text shorter, or only turned \ into /
        EXIT WHEN v_path = v_prev;
    END LOOP;
    IF '..' = ANY (string_to_array(v_path, '/')) THEN
        RAISE EXCEPTION 'invalid path in %: % contains a ".." segment', p_field, quote_literal(p_path)
            USING ERRCODE = 'LD001';
    END IF;
    IF left(v_path, 1) = '"' THEN
        RAISE EXCEPTION 'invalid path in %: % starts with a double quote once normalised (a stored path never does)',
            p_field, quote_literal(p_path) USING ERRCODE = 'LD001';
    END IF;
    RETURN v_path;
END
$$;

COMMENT ON FUNCTION ledger.normalize_path(text, text) IS
'Normalise one repository-relative path to a fixpoint (trim Unicode white space, unquote git''s C-quoted form, NFC, \ to /, drop :line[:col], drop ./ and //, keep a trailing / for directories). (path text, field text) -> text. Raises LD001 naming the field and value for NULL, empty (white space only), absolute, .. segments, control or format characters, a malformed quoted path, >4096 chars.';
