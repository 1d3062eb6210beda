-- 0038_check_dialects_and_checks_l undone: the frozen state before it

DROP FUNCTION ledger.lint_check(jsonb, jsonb, text);
DROP FUNCTION ledger._lint_stubs(text);
DROP FUNCTION ledger._check_leaves(jsonb);
DROP FUNCTION ledger.validate_check(jsonb, text);
DROP FUNCTION ledger._check_pattern(text, text);
DROP FUNCTION ledger._pattern_traps(text);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_check_resolved_when.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_finding__prepare_check.sql
