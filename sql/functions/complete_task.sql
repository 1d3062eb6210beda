-- ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run delivered: running -> completed, completed_at = now (clock).
-- p_session_id records the provider session the run ended in (NULL keeps the
-- current session_id). A completed row with started_at set is what proves
-- delivery, so only it can later date a delta (seed 003). Returns the row.
-- Raises LD005 not_found, LD201 (not running), LD003/LD004 (p_session_id).
CREATE OR REPLACE FUNCTION ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL)
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'completed');
    UPDATE ledger.agent_task t
       SET status = 'completed', session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.complete_task(bigint, text) IS
'Complete a running task: status completed, completed_at set, optionally the final session_id. (task_id, session_id) -> ledger.agent_task. Raises LD005, LD201 (not running), LD003/LD004.';
