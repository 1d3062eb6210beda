-- ledger.requeue_task(p_task_id bigint) -> ledger.agent_task
--
-- Puts back a dispatched task that never started (its runtime went away
-- before the run began): dispatched -> queued. The next ledger.claim_task
-- reclaims it as a new dispatch (dispatch_count + 1) and writes the newer
-- view of the issue into issue_snapshot. Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched: a started run is failed or
-- cancelled, never requeued).
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The lock, the check and the UPDATE are
-- ledger._set_task_status's, as for every task transition.
-- The caller must hold ledger_agent (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
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
