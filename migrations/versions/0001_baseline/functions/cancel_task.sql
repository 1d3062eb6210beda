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
-- outside ledger.claim_task). The task is locked FOR NO KEY UPDATE, which
-- does not block the foreign key check of a concurrent enqueue_task of a
-- rerun of this task (FOR UPDATE would). A task whose issue's scope the
-- connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t
     WHERE t.id = p_task_id
       AND ledger._scope_visible((SELECT i.scope FROM ledger.issue i WHERE i.id = t.issue_id))
       FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'cancelled');
    UPDATE ledger.agent_task t
       SET status = 'cancelled', failure_reason = coalesce(p_reason, t.failure_reason)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.cancel_task(bigint, text) IS
'Cancel a queued, dispatched or running task (optional reason kept in failure_reason). (task_id, reason) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (already final), LD003/LD004.';
