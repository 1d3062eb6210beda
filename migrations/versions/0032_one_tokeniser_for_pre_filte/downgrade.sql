-- 0032_one_tokeniser_for_pre_filte undone: restores the frozen files it replaced

DROP FUNCTION ledger._token_keys(p_scope text, p_norms text[], p_alts text[]);
DROP FUNCTION ledger._tokenise(p_text text, p_gaps boolean);
\ir ../0025_no_verb_on_a_non_resolving/functions/_message_tokens.sql
\ir ../0020_task_transitions_one_helper/functions/_match_message.sql
\ir ../0018_prefilter_splits_tokens/functions/_message_probe_keys.sql
\ir ../0029_one_definition_of_the_token/privileges.sql
