CREATE OR REPLACE FUNCTION ledger.requeue_task(p_task_id bigint)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.requeue_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'queued', NULL, NULL)
$$;

COMMENT ON FUNCTION ledger.requeue_task(bigint) IS
'Put a dispatched, never-started task back in the queue; the next claim is a new dispatch with a fresh snapshot. (task_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not dispatched). The caller must hold ledger_agent, else LD403.';
