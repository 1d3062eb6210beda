-- 0019_hunks_per_finding undone: restores the frozen files it replaced

\ir ../0012_hunk_arithmetic_in_bigint/functions/_match_changes.sql
