-- 0044_scope_on_agent_task_and_inj undone: the frozen state before it

\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_agent_task__prepare.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_injection__prepare.sql
-- (DROP COLUMN takes the column's foreign key, index, comment and column grants with it)
ALTER TABLE ledger.injection DROP COLUMN scope;

ALTER TABLE ledger.agent_task DROP COLUMN scope;

