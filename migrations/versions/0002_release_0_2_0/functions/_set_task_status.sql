CREATE OR REPLACE FUNCTION ledger._set_task_status(
    p_task_id bigint, p_status text, p_session_id text, p_failure_reason text)
RETURNS ledger.agent_task
LANGUAGE plpgsql
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, p_status);
    UPDATE ledger.agent_task t
       SET status = p_status,
           session_id = coalesce(p_session_id, t.session_id),
           failure_reason = CASE WHEN p_status = 'failed' THEN p_failure_reason
                                 ELSE coalesce(p_failure_reason, t.failure_reason) END
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger._set_task_status(bigint, text, text, text) IS
'Lock a task (FOR NO KEY UPDATE), check the move to p_status and write it: session_id when not NULL, failure_reason (a failed task''s; otherwise replaced only when not NULL). (task_id, status, session_id, failure_reason) -> ledger.agent_task. Raises LD005 (unknown or not visible), LD201, LD002, LD003/LD004. Not granted: the task transitions call it.';
