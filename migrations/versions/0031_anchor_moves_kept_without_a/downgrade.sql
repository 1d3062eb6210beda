-- 0031_anchor_moves_kept_without_a undone: restores the frozen files it replaced

\ir ../0021_writer_times_bounded_redeli/functions/tg_finding__prepare.sql
\ir ../0023_finding_checks_file_state_r/functions/_merge_decisions.sql
