-- ledger.requeue_task(p_task_id bigint) -> ledger.agent_task
--
-- Puts back a dispatched task that never started (its runtime went away
-- before the run began): dispatched -> queued. The next ledger.claim_task
-- reclaims it as a new dispatch (dispatch_count + 1) and writes the newer
-- view of the issue into issue_snapshot. Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched: a started run is failed or
-- cancelled, never requeued).
CREATE OR REPLACE FUNCTION ledger.requeue_task(p_task_id bigint)
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'queued');
    UPDATE ledger.agent_task t SET status = 'queued' WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.requeue_task(bigint) IS
'Put a dispatched, never-started task back in the queue; the next claim is a new dispatch with a fresh snapshot. (task_id) -> ledger.agent_task. Raises LD005, LD201 (not dispatched).';
