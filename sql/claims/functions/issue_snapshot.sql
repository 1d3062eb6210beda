-- ledger.issue_snapshot(p_title text, p_description text, p_version integer DEFAULT NULL) -> jsonb
--
-- The comparison key of an issue body, as a claim records it in
-- agent_task.issue_snapshot:
--   {"v": 1, "title_sha256": "<hex>", "description_sha256": "<hex>"}
-- each the lowercase hexadecimal SHA-256 of the text's UTF-8 bytes
-- (convert_to(text, 'UTF8'), never a bytea cast, which parses escapes such as
-- \x41; never a jsonb::text rendering). A NULL title or description hashes
-- like the empty string.
--   v = 1  the exact bytes, no normalisation (byte-compatible with the issue-snapshot design's
--          system: its rows compare correctly here);
--   v = 2  after CRLF -> LF and Unicode NFC normalisation (normalize(.., NFC),
--          which needs a UTF8 database), so line-ending-only edits and NFC/NFD
--          differences read as unchanged.
-- p_version NULL means the deployment's version (ledger._snapshot_version()).
-- Hashes only: the result never carries any of the text.
-- Raises LD003 value_invalid for a version other than 1 or 2 (or an invalid
-- ledger.snapshot_version setting).
CREATE OR REPLACE FUNCTION ledger.issue_snapshot(p_title text, p_description text, p_version integer DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_version integer := coalesce(p_version, ledger._snapshot_version());
    v_title text := coalesce(p_title, '');
    v_description text := coalesce(p_description, '');
BEGIN
    IF v_version = 2 THEN
        v_title := normalize(replace(v_title, E'\r\n', E'\n'), NFC);
        v_description := normalize(replace(v_description, E'\r\n', E'\n'), NFC);
    ELSIF v_version IS DISTINCT FROM 1 THEN
        RAISE EXCEPTION 'invalid issue_snapshot.p_version: % (expected 1 or 2)', v_version
            USING ERRCODE = 'LD003';
    END IF;
    RETURN jsonb_build_object(
        'v', v_version,
        'title_sha256', encode(sha256(convert_to(v_title, 'UTF8')), 'hex'),
        'description_sha256', encode(sha256(convert_to(v_description, 'UTF8')), 'hex'));
END
$$;

COMMENT ON FUNCTION ledger.issue_snapshot(text, text, integer) IS
'Snapshot of an issue body: {"v", "title_sha256", "description_sha256"}, lowercase hex SHA-256 of the UTF-8 bytes (NULL hashes as the empty string). v1: exact bytes (default); v2: CRLF -> LF and NFC first. (title, description, version NULL = setting ledger.snapshot_version) -> jsonb. Raises LD003 for another version.';
