-- 0036_check_patterns_in_another_r undone: restores the frozen files it replaced

DROP FUNCTION ledger.validate_check(p_check jsonb, p_field text);
DROP FUNCTION ledger._check_pattern(p_pattern text, p_field text);
DROP FUNCTION ledger._pattern_traps(p_pattern text);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_check_resolved_when.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_finding__prepare_check.sql
\ir ../0033_drop_the_unused_scoped_evid/privileges.sql
