-- ledger._title_sig(p_title text) -> text[]
--
-- The significant words of a title in order, lower-cased
-- (ledger._significant over ledger._words): 'Root pyproject.toml is missing
-- nightshift workspace entries' -> {root, pyproject.toml, missing,
-- nightshift, workspace, entries}. Raises nothing.
CREATE OR REPLACE FUNCTION ledger._title_sig(p_title text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(w.n ORDER BY w.o), '{}')
      FROM (SELECT pg_catalog.lower(x COLLATE pg_catalog."C") AS n, o
              FROM pg_catalog.unnest(ledger._words(p_title)) WITH ORDINALITY AS u(x, o)) AS w
     WHERE ledger._significant(w.n)
$$;

COMMENT ON FUNCTION ledger._title_sig(text) IS
'Significant words of a title, lower-cased, in order. text -> text[]. Raises nothing.';
