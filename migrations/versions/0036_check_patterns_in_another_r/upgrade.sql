-- 0036_check_patterns_in_another_r: check patterns in another regex dialect

\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/tg_finding__prepare_check.sql
\ir privileges.sql
