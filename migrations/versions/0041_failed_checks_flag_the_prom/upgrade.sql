-- 0041_failed_checks_flag_the_prom: failed checks flag, the prompt text keeps its budget

\ir functions/read_prompt_text.sql
\ir functions/_settle_checks.sql
