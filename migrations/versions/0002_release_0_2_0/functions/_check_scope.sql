CREATE OR REPLACE FUNCTION ledger._check_scope(p_value text, p_field text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v text := ledger._check_text(p_value, p_field, true, 200);
BEGIN
    IF v !~ ('[^' || ledger._unicode_class('white_space') || ']') THEN
        RAISE EXCEPTION '% is required: got % (white space only)', p_field, quote_literal(p_value)
            USING ERRCODE = 'LD002';
    END IF;
    IF strpos(v, ',') > 0 THEN
        RAISE EXCEPTION 'invalid %: % contains a comma; ledger.scopes lists scopes separated by commas', p_field,
            quote_literal(v) USING ERRCODE = 'LD003';
    END IF;
    IF v ~ ('[' || ledger._unicode_class('control') || ledger._unicode_class('format') || ']') THEN
        RAISE EXCEPTION 'invalid %: % contains a control or invisible format character', p_field, quote_literal(v)
            USING ERRCODE = 'LD003';
    END IF;
    RETURN v;
END
$$;

COMMENT ON FUNCTION ledger._check_scope(text, text) IS
'Validate and trim a scope name: _check_text rules (required, one line, <= 200 chars), not white space only (Unicode), no comma (ledger.scopes separates scopes with commas), no control or format character. (value, field) -> text. Raises LD002, LD003, LD004 naming the field and value.';
