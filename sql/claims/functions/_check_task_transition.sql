-- ledger._check_task_transition(p_task_id bigint, p_from text, p_to text) -> void
--
-- The agent_task status machine, in one place:
--   queued     -> dispatched (ledger.claim_task only), cancelled
--   dispatched -> running, failed, cancelled, queued (requeue: never started)
--   running    -> completed, failed, cancelled
--   completed, failed and cancelled are final.
-- Called by the _100_prepare trigger for every UPDATE that changes status,
-- however it is written, and by the lifecycle functions, which also reject a
-- repeated transition (starting a running task, completing a completed one).
-- Raises LD201 task_transition_invalid naming the task, both statuses and the
-- allowed targets.
CREATE OR REPLACE FUNCTION ledger._check_task_transition(p_task_id bigint, p_from text, p_to text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_allowed text[] := CASE p_from
        WHEN 'queued' THEN ARRAY['dispatched', 'cancelled']
        WHEN 'dispatched' THEN ARRAY['running', 'failed', 'cancelled', 'queued']
        WHEN 'running' THEN ARRAY['completed', 'failed', 'cancelled']
        ELSE '{}'::text[] END;
BEGIN
    IF NOT (p_to = ANY (v_allowed)) THEN
        RAISE EXCEPTION 'invalid agent_task.status transition for task %: % -> %', p_task_id, p_from, p_to
            USING ERRCODE = 'LD201',
                  HINT = CASE WHEN v_allowed = '{}' THEN format('%s is final', p_from)
                              ELSE format('from %s a task may move to %s', p_from, array_to_string(v_allowed, ', ')) END;
    END IF;
END
$$;

COMMENT ON FUNCTION ledger._check_task_transition(bigint, text, text) IS
'Enforce the agent_task status machine: queued -> dispatched | cancelled; dispatched -> running | failed | cancelled | queued; running -> completed | failed | cancelled; completed, failed, cancelled final. (task_id, from, to) -> void. Raises LD201 naming the task and both statuses.';
