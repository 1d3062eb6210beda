-- 0041_failed_checks_flag_the_prom undone: the frozen state before it

\ir ../0036_rechecks_settle_and_file_st/functions/_settle_checks.sql
\ir ../0037_verdicts_and_the_prompt_tex/functions/read_prompt_text.sql
