-- 0045_refuse_contradicting_added undone: the frozen state before it

\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_merge__prepare_changes.sql
