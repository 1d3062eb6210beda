-- 0037_checks_lint: checks lint

\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir privileges.sql
