-- 0036_verdicts_and_prompt_text undone: restores the frozen files it replaced

DROP FUNCTION ledger.verify_finding(p_finding_id bigint, p_verdict text, p_evidence text, p_verifier text);
DROP FUNCTION ledger.read_prompt_text(p_scope text, p_max_chars integer, p_kinds text[], p_max_touches integer, p_max_age interval, p_current_group text, p_max_groups integer);
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer, p_current_group text, p_max_groups integer, p_max_touches integer);
DROP FUNCTION ledger._finding_touches(p_finding_id bigint, p_max_touches integer);
DROP FUNCTION ledger._commit_subject(p_message text);
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_audit.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_prompt_findings.sql
\ir ../0033_drop_the_unused_scoped_evid/privileges.sql
