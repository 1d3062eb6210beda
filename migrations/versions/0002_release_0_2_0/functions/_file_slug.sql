CREATE OR REPLACE FUNCTION ledger._file_slug(p_name text)
RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
    SELECT pg_catalog.lower(pg_catalog.substring(p_name, '^[0-9]{4}-[0-9]{2}-[0-9]{2}-(.+)\.[mM][dD]$') COLLATE pg_catalog."C")
$$;

COMMENT ON FUNCTION ledger._file_slug(text) IS
'Slug of a YYYY-MM-DD-<slug>.md file name, lower-cased; NULL for other names. text -> text. Raises nothing.';
