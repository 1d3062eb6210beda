-- 0012_hunk_arithmetic_in_bigint undone: restores the frozen files it replaced

\ir ../0007_merge_trigger_phase_2/functions/_match_changes.sql
