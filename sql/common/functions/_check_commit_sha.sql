-- ledger._check_commit_sha(p_value text, p_field text) -> text
--
-- A merge's commit_sha checked and normalised: ledger._check_text
-- (required, trimmed, one line, at most 64 characters: LD002 / LD003 /
-- LD004 naming p_field), then lower-cased (ASCII) and refused with LD003
-- unless it is 4 to 64 hexadecimal digits. The one rule of the merge
-- trigger _100_prepare (p_field 'merge.commit_sha'), ledger.reconcile
-- ('merge <id> commit_sha', for rows written without triggers) and
-- ledger.record_merges (its redelivery lookup before the INSERT).
-- Raises LD002, LD003, LD004.
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
