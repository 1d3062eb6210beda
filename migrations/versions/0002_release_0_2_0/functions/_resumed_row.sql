CREATE OR REPLACE FUNCTION ledger._resumed_row(
    p_task_id bigint, p_issue_id bigint, p_agent_id text, p_runtime_id text,
    p_rerun_of_task_id bigint, p_force_fresh_session boolean)
RETURNS ledger.agent_task
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_row ledger.agent_task;
BEGIN
    IF p_force_fresh_session THEN
        RETURN v_row;
    END IF;
    IF p_rerun_of_task_id IS NOT NULL THEN
        SELECT s.* INTO v_row
          FROM ledger.agent_task s
         WHERE s.id = p_rerun_of_task_id
           AND s.agent_id = p_agent_id
           AND s.issue_id = p_issue_id
           AND s.runtime_id = p_runtime_id
           AND s.session_id IS NOT NULL;
        RETURN v_row;
    END IF;
    SELECT latest.* INTO v_row
      FROM (SELECT DISTINCT ON (r.session_id) r.*
              FROM ledger.agent_task r
             WHERE r.issue_id = p_issue_id
               AND r.agent_id = p_agent_id
               AND r.runtime_id = p_runtime_id
               AND r.session_id IS NOT NULL
               AND r.id <> p_task_id
             ORDER BY r.session_id, coalesce(r.dispatched_at, r.created_at) DESC, r.id DESC) latest
     WHERE NOT EXISTS (SELECT 1 FROM ledger.poisoned_failure_reason p
                        WHERE p.failure_reason = latest.failure_reason)
       AND NOT EXISTS (SELECT 1 FROM ledger.retired_session s WHERE s.session_id = latest.session_id)
     ORDER BY coalesce(latest.dispatched_at, latest.created_at) DESC, latest.id DESC
     LIMIT 1;
    RETURN v_row;
END
$$;

COMMENT ON FUNCTION ledger._resumed_row(bigint, bigint, text, text, bigint, boolean) IS
'The earlier agent_task row whose session a claim of the task (task_id, issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session) resumes, whole: none (NULL) when force_fresh_session; the rerun source when it is for the same agent, issue and runtime and has a session; else the newest latest-row-per-session of the same agent, issue and runtime, skipping poisoned (ledger.poisoned_failure_reason) and retired (ledger.retired_session) sessions. -> ledger.agent_task. Raises nothing.';
