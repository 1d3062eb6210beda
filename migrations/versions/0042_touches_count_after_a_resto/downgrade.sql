-- 0042_touches_count_after_a_resto undone: the frozen state before it

\ir ../0037_verdicts_and_the_prompt_tex/functions/_finding_touches.sql
\ir ../0037_verdicts_and_the_prompt_tex/functions/verify_finding.sql
