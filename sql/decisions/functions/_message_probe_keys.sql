-- ledger._message_probe_keys(p_scope text, p_message text) -> text[]
--
-- The keys under which the message pre-filter (ledger._message_may_match)
-- probes finding_active_evidence_idx: every form under which
-- ledger._match_message can find an active finding of p_scope named by
-- p_message. The whole message (NFC, as the matcher reads it; a message
-- already in NFC, as ASCII always is, is not normalised again) goes through
-- the one tokeniser, ledger._tokenise (without the separators, which only
-- a token broken at a line end needs), and its norms and alts through
-- ledger._token_keys, the matcher's own key builder: 'i' tokens, their
-- file-name and dated slugs, '=' and 't' runs of two and three significant
-- words, each prefixed with p_scope || U+001F.
-- In ledger._token_keys' order, a key repeated when its words are (the
-- probe reads a set); '{}' for a message without a token.
-- A superset of the matcher's keys: a segment of ledger._message_segments is
-- a run of whole lines, so its tokens and word runs are the message's
-- (tests/decisions/test_message_prefilter.py compares the keys with a
-- reference tokeniser; tests/decisions/test_tokeniser_differential.py with
-- the frozen earlier definitions). Cost: docs/performance.md.
-- PL/pgSQL, planned once per session. Raises nothing.
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
'The pre-filter''s probe keys of a message: ledger._token_keys of the whole NFC message''s tokens (ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs, the same of tokens joined across a line end; ''t'' three and ''='' two consecutive significant words), repeated when the words are; a superset of ledger._match_message''s keys. (scope text, message text) -> text[], ''{}'' without a token. Raises nothing.';
