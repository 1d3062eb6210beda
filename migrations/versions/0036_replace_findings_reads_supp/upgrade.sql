-- 0036_replace_findings_reads_supp: replace_findings reads suppressions

\ir functions/replace_findings.sql
