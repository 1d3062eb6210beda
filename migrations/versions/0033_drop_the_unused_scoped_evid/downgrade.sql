-- 0033_drop_the_unused_scoped_evid undone: restores the frozen files it replaced

\ir ../0020_task_transitions_one_helper/functions/_scoped_evidence_keys.sql
\ir ../0029_one_definition_of_the_token/privileges.sql
