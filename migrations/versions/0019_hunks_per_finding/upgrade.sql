-- 0019_hunks_per_finding: hunks per finding

\ir functions/_match_changes.sql
