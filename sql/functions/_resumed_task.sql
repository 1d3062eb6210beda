-- ledger._resumed_task(p_task_id bigint) -> bigint
--
-- The id of the earlier agent_task row whose provider session task
-- p_task_id resumes when it is claimed, or NULL when it resumes none: the
-- row ledger._resumed_row chooses from the task's stored anchor fields
-- (force_fresh_session, rerun_of_task_id, agent, issue, runtime; its header
-- has the rules of seed 003).
-- Raises LD005 not_found for an unknown task.
CREATE OR REPLACE FUNCTION ledger._resumed_task(p_task_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    RETURN (ledger._resumed_row(v_task.id, v_task.issue_id, v_task.agent_id, v_task.runtime_id,
                                v_task.rerun_of_task_id, v_task.force_fresh_session)).id;
END
$$;

COMMENT ON FUNCTION ledger._resumed_task(bigint) IS
'The earlier agent_task row whose session a claim of this task resumes (ledger._resumed_row of its stored fields): none when force_fresh_session; the rerun source when it is for the same agent, issue and runtime and has a session; else the newest latest-row-per-session of the same agent, issue and runtime, skipping poisoned (ledger.poisoned_failure_reason) and retired (ledger.retired_session) sessions. (task_id) -> bigint or NULL. Raises LD005.';
