-- 0037_check_dialects_checks_lint: check dialects, checks lint and h-verify interim

\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir functions/tg_finding__prepare_check.sql
\ir functions/read_audit.sql
\ir functions/_finding_touches.sql
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer, p_current_group text, p_max_groups integer);
\ir functions/read_prompt_findings.sql
\ir functions/read_prompt_text.sql
\ir functions/verify_finding.sql
\ir privileges.sql
