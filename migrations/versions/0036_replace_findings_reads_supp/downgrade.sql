-- 0036_replace_findings_reads_supp undone: restores the frozen files it replaced

\ir ../0024_replace_findings_re_analysi/functions/replace_findings.sql
