-- 0037_check_dialects_checks_lint undone: restores the frozen files it replaced

DROP FUNCTION ledger.verify_finding(p_finding_id bigint, p_verdict text, p_evidence text, p_verifier text);
DROP FUNCTION ledger.read_prompt_text(p_scope text, p_max_chars integer, p_kinds text[], p_max_touches integer, p_max_age interval, p_current_group text, p_max_groups integer);
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer, p_current_group text, p_max_groups integer, p_max_touches integer);
DROP FUNCTION ledger._finding_touches(p_finding_id bigint, p_max_touches integer);
DROP FUNCTION ledger.lint_check(p_check jsonb, p_states jsonb, p_field text);
DROP FUNCTION ledger._lint_stubs(p_pattern text);
DROP FUNCTION ledger._check_leaves(p_check jsonb);
DROP FUNCTION ledger.validate_check(p_check jsonb, p_field text);
DROP FUNCTION ledger._check_pattern(p_pattern text, p_field text);
DROP FUNCTION ledger._pattern_traps(p_pattern text);
\ir ../0034_pg_temp_last_in_every_pinne/functions/_check_resolved_when.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_finding__prepare_check.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_audit.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_prompt_findings.sql
\ir ../0036_rechecks_settle_and_file_st/privileges.sql
