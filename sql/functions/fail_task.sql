-- ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run failed: dispatched or running -> failed, completed_at = now,
-- failure_reason recorded (required, single line, <= 200 characters). A
-- reason listed in ledger.poisoned_failure_reason poisons the row's session:
-- later claims do not resume it. p_session_id as in complete_task.
-- Returns the updated row.
-- Raises LD005 not_found, LD201 (not dispatched or running), LD002 (reason
-- missing), LD003/LD004 (malformed reason or session).
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The task is locked FOR NO KEY UPDATE, which
-- does not block the foreign key check of a concurrent enqueue_task of a
-- rerun of this task (FOR UPDATE would). A task whose issue's scope the
-- connection may not see under per-scope row-level security
-- (ledger._scope_visible) is unknown (LD005).
CREATE OR REPLACE FUNCTION ledger.fail_task(p_task_id bigint, p_failure_reason text, p_session_id text DEFAULT NULL)
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'failed');
    UPDATE ledger.agent_task t
       SET status = 'failed', failure_reason = p_failure_reason, session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.fail_task(bigint, text, text) IS
'Fail a dispatched or running task with a failure_reason (poisoned reasons stop its session from being resumed). (task_id, failure_reason, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201, LD002 (reason missing), LD003/LD004.';
