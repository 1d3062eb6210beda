-- 0030_path_keys_built_once_per_me undone: restores the frozen files it replaced

\ir ../0028_one_builder_of_the_path_key/functions/_match_changes.sql
\ir ../0023_finding_checks_file_state_r/functions/tg_merge__supersede.sql
