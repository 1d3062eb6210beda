-- ledger._set_task_status(p_task_id bigint, p_status text, p_session_id text,
--                         p_failure_reason text) -> ledger.agent_task
--
-- The one step of every task transition of an agent (ledger.start_task,
-- complete_task, fail_task, cancel_task, requeue_task): locks the task FOR
-- NO KEY UPDATE (which does not block the foreign key check of a concurrent
-- enqueue_task of a rerun of this task, as FOR UPDATE would), checks the
-- move (ledger._check_task_transition) and writes it in one UPDATE.
-- p_session_id NULL keeps the task's session_id; p_failure_reason is the
-- failure_reason of a failed task and, for any other status, replaces the
-- kept one when not NULL (a cancel's reason). The _100_prepare trigger
-- validates what is written as it does a direct UPDATE.
-- A task whose issue's scope the connection may not see under per-scope
-- row-level security (ledger._scope_visible) is unknown (LD005).
-- Raises LD005 (unknown task), LD201 (a move the task machine refuses),
-- LD002 (a failed task without a reason), LD003/LD004 (malformed text).
-- Not granted to any role: the SECURITY DEFINER transitions call it as the
-- owner.
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
