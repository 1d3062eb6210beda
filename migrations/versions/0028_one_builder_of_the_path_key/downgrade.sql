-- 0028_one_builder_of_the_path_key undone: restores the frozen files it replaced

\ir ../0019_hunks_per_finding/functions/_match_changes.sql
