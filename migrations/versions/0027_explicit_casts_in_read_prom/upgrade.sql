-- 0027_explicit_casts_in_read_prom: explicit casts in read_prompt_findings and the hunk bound (plpgsql_check)

\ir functions/read_prompt_findings.sql
\ir functions/tg_merge__prepare_changes.sql
