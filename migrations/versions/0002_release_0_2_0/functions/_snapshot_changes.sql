CREATE OR REPLACE FUNCTION ledger._snapshot_changes(p_anchor jsonb, p_current jsonb)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- One expression (a claim runs once per transaction, and plpgsql
    -- initialises every expression once per transaction); the hex test is
    -- length + a character class, as ^[0-9a-f]{64}$ costs microseconds.
    RETURN CASE
        WHEN p_anchor IS NULL OR p_current IS NULL OR jsonb_typeof(p_anchor) <> 'object'
             OR jsonb_typeof(p_anchor -> 'v') IS DISTINCT FROM 'number'
             OR (p_anchor ->> 'v')::numeric IS DISTINCT FROM (p_current ->> 'v')::numeric
             OR jsonb_typeof(p_anchor -> 'title_sha256') IS DISTINCT FROM 'string'
             OR length(p_anchor ->> 'title_sha256') <> 64 OR (p_anchor ->> 'title_sha256') ~ '[^0-9a-f]'
             OR jsonb_typeof(p_anchor -> 'description_sha256') IS DISTINCT FROM 'string'
             OR length(p_anchor ->> 'description_sha256') <> 64
             OR (p_anchor ->> 'description_sha256') ~ '[^0-9a-f]' THEN NULL
        ELSE array_remove(ARRAY[
                 CASE WHEN (p_anchor ->> 'title_sha256') IS DISTINCT FROM (p_current ->> 'title_sha256')
                      THEN 'title' END,
                 CASE WHEN (p_anchor ->> 'description_sha256') IS DISTINCT FROM (p_current ->> 'description_sha256')
                      THEN 'description' END], NULL)
    END;
END
$$;

COMMENT ON FUNCTION ledger._snapshot_changes(jsonb, jsonb) IS
'Changed fields between an anchor snapshot and the current one, in the order title, description; NULL when the anchor is NULL, of another version or does not parse (not compared). Extra keys such as a legacy "status" are ignored. (anchor jsonb, current jsonb) -> text[]. Raises nothing.';
