-- 0006_merge_cost_anchor_moves_ski undone: the frozen state before it

DROP TRIGGER _100_prepare_update ON ledger.finding;
DROP FUNCTION ledger._anchors_kept(jsonb, text[]);
\ir ../0002_release_0_2_0/functions/tg_finding__prepare.sql
\ir ../0002_release_0_2_0/functions/_path_keys.sql
\ir ../0005_merge_cost_the_anchor_lane/functions/_match_changes.sql
\ir ../0002_release_0_2_0/functions/_token_keys.sql
\ir ../0005_merge_cost_the_anchor_lane/functions/_check_merge_changes.sql
\ir ../0002_release_0_2_0/functions/tg_merge__prepare_changes.sql
\ir ../0005_merge_cost_the_anchor_lane/functions/_apply_merge.sql
\ir ../0002_release_0_2_0/triggers/finding___100_prepare.sql
COMMENT ON FUNCTION ledger._message_probe_keys(text, text) IS
'The pre-filter''s probe keys of a message: ledger._token_keys of the whole NFC message''s tokens (ledger._tokenise): scope || U+001F || (''i'' token of 3+ characters, its file-name and dated slugs, the same of tokens joined across a line end; ''t'' three and ''='' two consecutive significant words), distinct; a superset of ledger._match_message''s keys. (scope text, message text) -> text[], ''{}'' without a token. Raises nothing.';
