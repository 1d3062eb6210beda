-- 0038_check_dialects_and_checks_l: check dialects and checks lint

\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir functions/tg_finding__prepare_check.sql
REVOKE EXECUTE ON FUNCTION ledger._check_leaves(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_pattern(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._lint_stubs(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._pattern_traps(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._check_pattern(text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._pattern_traps(text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) TO ledger_writer;
