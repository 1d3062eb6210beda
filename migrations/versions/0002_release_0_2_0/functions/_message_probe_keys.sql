CREATE OR REPLACE FUNCTION ledger._message_probe_keys(p_scope text, p_message text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_msg text := coalesce(p_message, '');
    v_t   record;
BEGIN
    IF v_msg IS NOT NFC NORMALIZED THEN
        v_msg := pg_catalog.normalize(v_msg, 'NFC');
    END IF;
    v_t := ledger._tokenise(v_msg, false);
    RETURN ledger._token_keys(p_scope, v_t.norms, v_t.alts);
END
$$;

COMMENT ON FUNCTION ledger._message_probe_keys(text, text) IS
'The pre-filter''s probe keys of a message: ledger._token_keys of the whole NFC message''s tokens (ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs, the same of tokens joined across a line end; ''t'' three and ''='' two consecutive significant words), distinct; a superset of ledger._match_message''s keys. (scope text, message text) -> text[], ''{}'' without a token. Raises nothing.';
