CREATE OR REPLACE FUNCTION ledger._evidence_token(p_value text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT CASE
        WHEN v IS NULL OR pg_catalog.char_length(v) < 3 THEN NULL
        WHEN v !~ ('^' || ledger._token_regex(false) || '$') THEN NULL
        WHEN v ~ '[0-9_.-]' OR pg_catalog.substr(v, 2) ~ '[A-Z]' THEN pg_catalog.lower(v COLLATE pg_catalog."C")
        ELSE NULL END
      FROM (SELECT pg_catalog.normalize(pg_catalog.btrim(p_value), 'NFC') AS v) AS s
$$;

COMMENT ON FUNCTION ledger._evidence_token(text) IS
'Lookup form (lower-case, NFC) of a key, slug or keyword that is one distinctive token (>= 3 chars with a digit, _, -, . or an inner capital); NULL otherwise. text -> text. Raises nothing.';
