CREATE OR REPLACE FUNCTION ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.start_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'running', p_session_id, NULL)
$$;

COMMENT ON FUNCTION ledger.start_task(bigint, text) IS
'Start a dispatched task: status running, started_at set, optionally the provider session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005 (unknown task), LD201 (not dispatched), LD003/LD004 (session_id). The caller must hold ledger_agent, else LD403.';
