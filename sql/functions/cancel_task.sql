-- ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL) -> ledger.agent_task
--
-- Cancels a task that has not finished: queued, dispatched or running ->
-- cancelled, completed_at = now. p_reason, when given, is stored in
-- failure_reason (a poisoned reason poisons the session like a failure).
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (already completed, failed or cancelled),
-- LD003/LD004 (malformed reason).
CREATE OR REPLACE FUNCTION ledger.cancel_task(p_task_id bigint, p_reason text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id FOR UPDATE;
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
'Cancel a queued, dispatched or running task (optional reason kept in failure_reason). (task_id, reason) -> ledger.agent_task. Raises LD005, LD201 (already final), LD003/LD004.';
