-- 0037_reanalysis_lookups_probe_th undone: restores the frozen files it replaced

\ir ../0023_finding_checks_file_state_r/functions/report_finding.sql
\ir ../0036_replace_findings_reads_supp/functions/replace_findings.sql
