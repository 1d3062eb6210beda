-- 0037_checks_lint undone: restores the frozen files it replaced

DROP FUNCTION ledger.lint_check(p_check jsonb, p_states jsonb, p_field text);
DROP FUNCTION ledger._lint_stubs(p_pattern text);
DROP FUNCTION ledger._check_leaves(p_check jsonb);
\ir ../0036_check_patterns_in_another_r/privileges.sql
