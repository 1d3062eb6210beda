-- 0012_hunk_arithmetic_in_bigint: Hunk arithmetic in bigint

\ir functions/_match_changes.sql
