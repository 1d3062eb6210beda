-- 0020_task_transitions_one_helper: task transitions one helper

DROP FUNCTION ledger._match_paths(p_scope text, p_paths text[]);
-- dropped: functions/_match_paths.sql
DROP FUNCTION ledger._resumed_task(p_task_id bigint);
-- dropped: functions/_resumed_task.sql
DROP FUNCTION ledger._scoped_paths(p_scope text, p_paths text[]);
-- dropped: functions/_scoped_paths.sql
DROP FUNCTION ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer);
-- dropped: functions/_write_issue_snapshot.sql
\ir comments/tables/scope.sql
\ir comments/tables/finding.sql
\ir comments/views/active_finding.sql
\ir comments/views/finding_lifecycle.sql
\ir functions/_scoped_evidence_keys.sql
\ir functions/_set_task_status.sql
DROP FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text);
\ir functions/claim_task.sql
\ir functions/start_task.sql
\ir functions/complete_task.sql
\ir functions/fail_task.sql
\ir functions/cancel_task.sql
\ir functions/requeue_task.sql
\ir functions/_match_message.sql
\ir comments/functions/_apply_revert.sql
\ir privileges.sql
