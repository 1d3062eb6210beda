-- 0036_verdicts_and_prompt_text: verdicts and prompt text

\ir functions/_commit_subject.sql
\ir functions/read_audit.sql
\ir functions/_finding_touches.sql
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer, p_current_group text, p_max_groups integer);
\ir functions/read_prompt_findings.sql
\ir functions/read_prompt_text.sql
\ir functions/verify_finding.sql
\ir privileges.sql
