CREATE OR REPLACE FUNCTION ledger._check_commit_sha(p_value text, p_field text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v text := lower(ledger._check_text(p_value, p_field, true, 64) COLLATE "C");
BEGIN
    IF v !~ '^[0-9a-f]{4,64}$' THEN
        RAISE EXCEPTION 'invalid %: % is not a hexadecimal commit id (4 to 64 digits)', p_field, quote_literal(v)
            USING ERRCODE = 'LD003';
    END IF;
    RETURN v;
END
$$;

COMMENT ON FUNCTION ledger._check_commit_sha(text, text) IS
'Check and normalise a commit_sha: required, trimmed, at most 64 characters, lower-cased, 4 to 64 hexadecimal digits. (value, field) -> text. Raises LD002, LD003, LD004 naming the field and value.';
