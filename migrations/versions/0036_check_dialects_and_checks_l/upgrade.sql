-- 0036_check_dialects_and_checks_l: check dialects and checks lint

\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir functions/tg_finding__prepare_check.sql
\ir privileges.sql
