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
-- outside ledger.claim_task). The task is locked FOR NO KEY UPDATE, which
-- does not block the foreign key check of a concurrent enqueue_task of a
-- rerun of this task (FOR UPDATE would). A task whose issue's scope the
-- connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.requeue_task(p_task_id bigint)
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'queued');
    UPDATE ledger.agent_task t SET status = 'queued' WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.requeue_task(bigint) IS
'Put a dispatched, never-started task back in the queue; the next claim is a new dispatch with a fresh snapshot. (task_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not dispatched).';
