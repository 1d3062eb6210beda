-- 0040_sarif_suppressions_and_line: SARIF suppressions and linear re-analysis

\ir functions/report_finding.sql
\ir functions/replace_findings.sql
