-- 0016_cheaper_row_triggers: cheaper row triggers

\ir functions/tg_finding__prepare.sql
\ir functions/tg_merge__prepare.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/tg_scoped__check_access.sql
