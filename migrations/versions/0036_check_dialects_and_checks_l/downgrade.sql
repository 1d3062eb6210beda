-- 0036_check_dialects_and_checks_l undone: restores the frozen files it replaced

DROP FUNCTION ledger.lint_check(p_check jsonb, p_states jsonb, p_field text);
DROP FUNCTION ledger._lint_stubs(p_pattern text);
DROP FUNCTION ledger._check_leaves(p_check jsonb);
DROP FUNCTION ledger.validate_check(p_check jsonb, p_field text);
DROP FUNCTION ledger._check_pattern(p_pattern text, p_field text);
DROP FUNCTION ledger._pattern_traps(p_pattern text);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_check_resolved_when.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_finding__prepare_check.sql
\ir ../0033_drop_the_unused_scoped_evid/privileges.sql
