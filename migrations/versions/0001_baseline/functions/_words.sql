-- ledger._words(p_text text) -> text[]
--
-- The tokens of a short text (a title, a key, a keyword) in order, as
-- written (NFC-normalised, case kept), by the same definition as message
-- tokens (ledger._token_regex). 'Root pyproject.toml is missing' ->
-- {Root, pyproject.toml, is, missing}. NULL -> '{}'. Raises nothing (the
-- database encoding must be UTF8 for the NFC step).
CREATE OR REPLACE FUNCTION ledger._words(p_text text)
RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT coalesce(array_agg(m[1] ORDER BY o), '{}')
      FROM pg_catalog.regexp_matches(pg_catalog.normalize(coalesce(p_text, ''), 'NFC'),
                                     ledger._token_regex(false), 'g') WITH ORDINALITY AS r(m, o)
$$;

COMMENT ON FUNCTION ledger._words(text) IS
'Tokens of a short text in order, as written (NFC), by the message token definition. text -> text[]. Raises nothing.';
