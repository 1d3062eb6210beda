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
