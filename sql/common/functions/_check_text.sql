-- ledger._check_text(p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true) -> text
--
-- Validates one text field of a row written by a service and returns it
-- trimmed of surrounding white space (NULL stays NULL when not required).
-- Raises, naming the field and the value:
--   LD002 value_required  NULL or blank when p_required;
--   LD003 value_invalid   a control character in a single-line field, or a
--                         blank string in an optional field (use NULL);
--   LD004 value_too_long  more than p_max_length characters.
-- White space trimmed: space, tab, CR, LF, form feed and vertical tab. The
-- vertical tab is written E'\x0b': PostgreSQL's escape strings have no \v
-- (E'\v' is the letter v, and trimming it would eat a leading or trailing v).
CREATE OR REPLACE FUNCTION ledger._check_text(
    p_value text, p_field text, p_required boolean, p_max_length integer, p_single_line boolean DEFAULT true)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v text := btrim(p_value, E' \t\r\n\f\x0b');
BEGIN
    IF p_value IS NULL THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required', p_field USING ERRCODE = 'LD002';
        END IF;
        RETURN NULL;
    END IF;
    IF v = '' THEN
        IF p_required THEN
            RAISE EXCEPTION '% is required: got %', p_field, quote_literal(p_value) USING ERRCODE = 'LD002';
        END IF;
        RAISE EXCEPTION 'invalid %: % is blank; use NULL for no value', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD003';
    END IF;
    IF length(v) > p_max_length THEN
        RAISE EXCEPTION 'invalid %: % characters, at most % are accepted (value starts %)',
            p_field, length(v), p_max_length, quote_literal(left(v, 40))
            USING ERRCODE = 'LD004';
    END IF;
    IF p_single_line AND v ~ '[\x01-\x1f\x7f]' THEN
        RAISE EXCEPTION 'invalid %: % contains a control character', p_field, quote_literal(left(v, 200))
            USING ERRCODE = 'LD003';
    END IF;
    RETURN v;
END
$$;

COMMENT ON FUNCTION ledger._check_text(text, text, boolean, integer, boolean) IS
'Validate and trim one text field. (value, field, required, max_length, single_line) -> text. Raises LD002 (required), LD003 (control character / blank optional), LD004 (too long), naming the field and value.';
