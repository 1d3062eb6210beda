CREATE OR REPLACE FUNCTION ledger._check_pattern(p_pattern text, p_field text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_out     text := p_pattern;
    v_refused text[] := ARRAY[]::text[];
    r         record;
BEGIN
    FOR r IN SELECT t.pos, t.len, t.construct, t.are_form, t.exact
               FROM ledger._pattern_traps(p_pattern) AS t ORDER BY t.pos DESC LOOP
        IF r.exact THEN
            v_out := overlay(v_out PLACING r.are_form FROM r.pos FOR r.len);
        ELSE
            v_refused := array_prepend(format('%s at character %s (write %s)', r.construct, r.pos, r.are_form), v_refused);
        END IF;
    END LOOP;
    IF cardinality(v_refused) > 0 THEN
        RAISE EXCEPTION 'invalid %: % uses what PostgreSQL regular expressions (ARE) do not have: %', p_field,
            quote_literal(left(p_pattern, 200)), array_to_string(v_refused, '; ')
            USING ERRCODE = 'LD105',
                  HINT = 'a pattern is an ARE matched with ~ against the whole file text; docs/checks.md lists the constructs of other dialects and their ARE forms';
    END IF;
    BEGIN
        PERFORM '' ~ v_out;
    EXCEPTION WHEN invalid_regular_expression THEN
        RAISE EXCEPTION 'invalid %: % does not compile (%)', p_field, quote_literal(left(p_pattern, 200)), SQLERRM
            USING ERRCODE = 'LD003';
    END;
    RETURN v_out;
END
$$;

COMMENT ON FUNCTION ledger._check_pattern(text, text) IS
'A check pattern as stored: (pattern text, field text) -> text, the pattern with each construct of another dialect that has an exact ARE form rewritten (ledger._pattern_traps: \b -> \y, (?P<n> -> (, {,n} -> {0,n}, ...). Raises LD105 for a construct with no ARE form (naming each, its position and what to write) and LD003 when the result does not compile, naming the field and the pattern.';
