-- 0018_prefilter_splits_tokens undone: restores the frozen files it replaced

DROP FUNCTION ledger._message_probe_keys(p_scope text, p_message text);
DROP FUNCTION ledger._token_split_regex();
\ir ../0014_prefilter_on_distinct_words/functions/_message_may_match.sql
\ir ../0017_record_merges_row_index/privileges.sql
