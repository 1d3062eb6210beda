-- ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run failed: dispatched or running -> failed, completed_at = now,
-- failure_reason recorded (required, single line, <= 200 characters). A
-- reason listed in ledger.poisoned_failure_reason poisons the row's session:
-- later claims do not resume it. p_session_id as in complete_task.
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched or running), LD002 (reason
-- missing), LD003/LD004 (malformed reason or session).
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The lock, the check and the UPDATE are
-- ledger._set_task_status's, as for every task transition.
-- The caller must hold ledger_agent (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
CREATE OR REPLACE FUNCTION ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.fail_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'failed', p_session_id, p_failure_reason)
$$;

COMMENT ON FUNCTION ledger.fail_task(bigint, text, text) IS
'Fail a dispatched or running task with a failure_reason (poisoned reasons stop its session from being resumed). (task_id, failure_reason, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201, LD002 (reason missing), LD003/LD004. The caller must hold ledger_agent, else LD403.';
