-- ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The agent's run began: dispatched -> running, started_at = now (clock).
-- p_session_id records the provider session the run uses (when it differs
-- from the one the claim resumed, e.g. the provider opened a new one);
-- NULL keeps the session_id the claim set. Returns the updated row.
-- The same as UPDATE ledger.agent_task SET status = 'running' ..., which the
-- _100_prepare trigger checks identically.
-- Raises LD005 not_found (unknown task), LD201 (not dispatched), LD003/LD004
-- (malformed p_session_id).
CREATE OR REPLACE FUNCTION ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL)
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
    PERFORM ledger._check_task_transition(v_task.id, v_task.status, 'running');
    UPDATE ledger.agent_task t
       SET status = 'running', session_id = coalesce(p_session_id, t.session_id)
     WHERE t.id = v_task.id
    RETURNING t.* INTO v_task;
    RETURN v_task;
END
$$;

COMMENT ON FUNCTION ledger.start_task(bigint, text) IS
'Start a dispatched task: status running, started_at set, optionally the provider session_id. (task_id, session_id) -> ledger.agent_task. Raises LD005 (unknown task), LD201 (not dispatched), LD003/LD004 (session_id).';
