CREATE OR REPLACE FUNCTION ledger._title_sig(p_title text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- PL/pgSQL, so the query is planned once per session (with
    -- ledger._significant and its stop list inlined); as a SQL function it
    -- was planned on every call: half the cost of every finding written
    -- (the evidence index expression).
    RETURN (SELECT coalesce(array_agg(w.n ORDER BY w.o), '{}')
              FROM (SELECT lower(x COLLATE "C") AS n, o
                      FROM unnest(ledger._words(p_title)) WITH ORDINALITY AS u(x, o)) AS w
             WHERE ledger._significant(w.n));
END
$$;

COMMENT ON FUNCTION ledger._title_sig(text) IS
'Significant words of a title, lower-cased, in order. text -> text[]. Raises nothing.';
