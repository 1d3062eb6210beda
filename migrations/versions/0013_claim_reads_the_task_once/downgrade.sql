-- 0013_claim_reads_the_task_once undone: restores the frozen files it replaced

DROP FUNCTION ledger._text_kept(p_value text, p_max_length integer);
DROP FUNCTION ledger._scope_kept(p_value text);
DROP FUNCTION ledger._resumed_row(p_task_id bigint, p_issue_id bigint, p_agent_id text, p_runtime_id text, p_rerun_of_task_id bigint, p_force_fresh_session boolean);
\ir ../0002_harden_hostile_input/functions/tg_agent_task__prepare.sql
\ir ../0001_baseline/functions/_resumed_task.sql
\ir ../0005_plpgsql_typed_array_literal/functions/claim_task.sql
\ir ../0008_record_merges_in_batches/privileges.sql
