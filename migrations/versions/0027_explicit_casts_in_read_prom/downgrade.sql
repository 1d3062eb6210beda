-- 0027_explicit_casts_in_read_prom undone: restores the frozen files it replaced

\ir ../0023_finding_checks_file_state_r/functions/read_prompt_findings.sql
\ir ../0021_writer_times_bounded_redeli/functions/tg_merge__prepare_changes.sql
