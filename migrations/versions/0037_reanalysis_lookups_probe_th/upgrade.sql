-- 0037_reanalysis_lookups_probe_th: reanalysis lookups probe the unique index

\ir functions/report_finding.sql
\ir functions/replace_findings.sql
