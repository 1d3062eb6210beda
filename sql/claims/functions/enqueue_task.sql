-- ledger.enqueue_task(p_issue_id, p_agent_id, p_runtime_id, p_rerun_of_task_id,
--                     p_force_fresh_session) -> ledger.agent_task
--
-- Queues one agent run on an issue and returns the stored row (status
-- queued). Equivalent to a plain INSERT INTO ledger.agent_task. A manual
-- rerun names its source in p_rerun_of_task_id; p_force_fresh_session starts
-- a new provider session (no resume, so no delta).
-- Raises LD002 (agent, runtime or issue missing), LD003/LD004 (malformed),
-- LD005 not_found (unknown issue or rerun source).
CREATE OR REPLACE FUNCTION ledger.enqueue_task(
    p_issue_id bigint,
    p_agent_id text,
    p_runtime_id text,
    p_rerun_of_task_id bigint DEFAULT NULL,
    p_force_fresh_session boolean DEFAULT false)
RETURNS ledger.agent_task
LANGUAGE sql
AS $$
    INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session)
    VALUES (p_issue_id, p_agent_id, p_runtime_id, p_rerun_of_task_id, p_force_fresh_session)
    RETURNING *
$$;

COMMENT ON FUNCTION ledger.enqueue_task(bigint, text, text, bigint, boolean) IS
'Queue an agent run on an issue, returning the stored row. (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session) -> ledger.agent_task. Raises LD002, LD003, LD004, LD005 (unknown issue or rerun source).';
