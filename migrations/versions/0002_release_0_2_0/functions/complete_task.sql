CREATE OR REPLACE FUNCTION ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.complete_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'completed', p_session_id, NULL)
$$;

COMMENT ON FUNCTION ledger.complete_task(bigint, text) IS
'Complete a running task: status completed, completed_at set, optionally the final session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not running), LD003/LD004. The caller must hold ledger_agent, else LD403.';
