-- 0040_sarif_suppressions_and_line undone: the frozen state before it

\ir ../0023_finding_checks_file_state_r/functions/report_finding.sql
\ir ../0024_replace_findings_re_analysi/functions/replace_findings.sql
