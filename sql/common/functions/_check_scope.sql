-- ledger._check_scope(p_value text, p_field text) -> text
--
-- Validates a scope name written into finding.scope, merge.scope,
-- scope.scope or issue.scope and returns it trimmed. A scope name is what
-- every feature can express: it can be listed in the comma-separated
-- session setting ledger.scopes of per-scope row-level security, and it
-- looks like what it is. So, besides ledger._check_text's rules (required,
-- one line, at most 200 characters; LD002, LD003, LD004), it may not be
-- made of white space only (Unicode White_Space, the no-break space
-- included: LD002), nor contain a comma, a control character
-- (U+0080-U+009F, U+2028, U+2029 too) or a format character (Unicode Cf:
-- zero-width, bidirectional controls, BOM, ...): LD003. Each message names
-- p_field and the value. ledger.workspace_scope percent-encodes all of
-- them, so the scopes it derives always pass.
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
