-- 0014_prefilter_on_distinct_words undone: restores the frozen files it replaced

\ir ../0011_statement_merge_trigger/functions/_path_keys.sql
\ir ../0007_merge_trigger_phase_2/functions/_message_may_match.sql
