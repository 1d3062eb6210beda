-- 0016_cheaper_finding_triggers: cheaper finding triggers

\ir functions/tg_finding__prepare.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/tg_scoped__check_access.sql
