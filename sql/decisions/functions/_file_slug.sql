-- ledger._file_slug(p_name text) -> text
--
-- The slug of a findings file name in the design record's format
-- 'YYYY-MM-DD-<slug>.md' (the findings-file name of ADR-010), lower-cased; NULL for any other name.
-- '2026-06-24-drift-frozen.md' -> 'drift-frozen'. Used on message tokens
-- (a file name is one token) and on the base names of a merge's paths.
-- Raises nothing.
CREATE OR REPLACE FUNCTION ledger._file_slug(p_name text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.lower(pg_catalog.substring(p_name, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$') COLLATE pg_catalog."C")
$$;

COMMENT ON FUNCTION ledger._file_slug(text) IS
'Slug of a YYYY-MM-DD-<slug>.md file name, lower-cased; NULL for other names. text -> text. Raises nothing.';
