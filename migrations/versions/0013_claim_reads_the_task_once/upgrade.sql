-- 0013_claim_reads_the_task_once: claim reads the task once

\ir functions/_text_kept.sql
\ir functions/_scope_kept.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/_resumed_row.sql
\ir functions/_resumed_task.sql
\ir functions/claim_task.sql
\ir privileges.sql
