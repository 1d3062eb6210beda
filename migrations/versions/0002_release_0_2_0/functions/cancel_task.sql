CREATE OR REPLACE FUNCTION ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.cancel_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'cancelled', NULL, p_reason)
$$;

COMMENT ON FUNCTION ledger.cancel_task(bigint, text) IS
'Cancel a queued, dispatched or running task (optional reason kept in failure_reason). (task_id, reason) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (already final), LD003/LD004. The caller must hold ledger_agent, else LD403.';
