-- 0024_replace_findings_re_analysi undone: restores the frozen files it replaced

DROP FUNCTION ledger.replace_findings(p_scope text, p_kind text, p_review_run text, p_findings jsonb, p_actor text, p_tool text, p_category text);
\ir ../0005_plpgsql_typed_array_literal/functions/replace_findings.sql
\ir ../0023_finding_checks_file_state_r/privileges.sql
