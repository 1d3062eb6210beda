-- ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL) -> ledger.agent_task
--
-- Cancels a task that has not finished: queued, dispatched or running ->
-- cancelled, completed_at = now. p_reason, when given, is stored in
-- failure_reason (a poisoned reason poisons the session like a failure).
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (already completed, failed or cancelled),
-- LD003/LD004 (malformed reason).
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The lock, the check and the UPDATE are
-- ledger._set_task_status's, as for every task transition.
-- The caller must hold ledger_agent (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
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
