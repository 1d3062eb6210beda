-- 0029_one_definition_of_the_token undone: restores the frozen files it replaced

DROP FUNCTION ledger._token_chars();
\ir ../0001_baseline/functions/_token_regex.sql
\ir ../0018_prefilter_splits_tokens/functions/_token_split_regex.sql
\ir ../0024_replace_findings_re_analysi/privileges.sql
