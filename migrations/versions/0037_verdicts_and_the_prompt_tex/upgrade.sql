-- 0037_verdicts_and_the_prompt_tex: verdicts and the prompt text

DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer);
\ir functions/read_audit.sql
\ir functions/_finding_touches.sql
\ir functions/read_prompt_findings.sql
\ir functions/read_prompt_text.sql
\ir functions/verify_finding.sql
REVOKE EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) TO ledger_agent;
