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
