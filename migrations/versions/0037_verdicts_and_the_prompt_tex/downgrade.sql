-- 0037_verdicts_and_the_prompt_tex undone: the frozen state before it

DROP FUNCTION ledger.verify_finding(bigint, text, text, text);
DROP FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer);
DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer);
DROP FUNCTION ledger._finding_touches(bigint, integer);
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_audit.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/read_prompt_findings.sql
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer) TO ledger_admin, ledger_reader;
