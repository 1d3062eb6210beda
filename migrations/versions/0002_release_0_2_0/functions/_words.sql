CREATE OR REPLACE FUNCTION ledger._words(p_text text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- PL/pgSQL, so the query is planned once per session (the pattern folded
    -- to a constant); a SQL function with a FROM clause is not inlined and
    -- was planned again on every call (every finding written).
    RETURN (SELECT coalesce(array_agg(m[1] ORDER BY o), '{}')
              FROM pg_catalog.regexp_matches(pg_catalog.normalize(coalesce(p_text, ''), 'NFC'),
                                             ledger._token_regex(false), 'g') WITH ORDINALITY AS r(m, o));
END
$$;

COMMENT ON FUNCTION ledger._words(text) IS
'Tokens of a short text in order, as written (NFC), by the message token definition. text -> text[]. Raises nothing.';
