-- ledger._resumed_task(p_task_id bigint) -> bigint
--
-- The earlier agent_task row whose provider session task p_task_id resumes
-- when it is claimed, or NULL when it resumes none (seed 003: the row
-- GetLastTaskSession returns, or the operator-chosen source of a manual rerun):
--   1. force_fresh_session: none.
--   2. a manual rerun (rerun_of_task_id set): exactly that source task, when it
--      is for the same agent and issue, ran on the same runtime and has a
--      session_id; otherwise none (never a fallback to another row).
--   3. otherwise: among the other runs of the same agent on the same issue and
--      runtime that have a session_id, the latest row of each session (by
--      coalesce(dispatched_at, created_at), then id); sessions whose latest
--      row carries a failure_reason listed in ledger.poisoned_failure_reason,
--      and sessions listed in ledger.retired_session, are skipped; the newest
--      remaining row wins.
-- The row is returned whatever its status: whether it dates a delta (proof
-- of delivery) is the claim's decision. "The run that started last" is a
-- different row whenever a poisoned session is skipped or an older run is
-- rerun, which is why this is not an ORDER BY started_at.
-- Raises LD005 not_found for an unknown task.
CREATE OR REPLACE FUNCTION ledger._resumed_task(p_task_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog
AS $$
DECLARE
    v_task ledger.agent_task;
    v_id bigint;
BEGIN
    SELECT t.* INTO v_task FROM ledger.agent_task t WHERE t.id = p_task_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown agent_task.id: %', p_task_id USING ERRCODE = 'LD005';
    END IF;
    IF v_task.force_fresh_session THEN
        RETURN NULL;
    END IF;
    IF v_task.rerun_of_task_id IS NOT NULL THEN
        SELECT s.id INTO v_id
          FROM ledger.agent_task s
         WHERE s.id = v_task.rerun_of_task_id
           AND s.agent_id = v_task.agent_id
           AND s.issue_id = v_task.issue_id
           AND s.runtime_id = v_task.runtime_id
           AND s.session_id IS NOT NULL;
        RETURN v_id;
    END IF;
    SELECT latest.id INTO v_id
      FROM (SELECT DISTINCT ON (r.session_id)
                   r.id, r.session_id, r.failure_reason, coalesce(r.dispatched_at, r.created_at) AS at
              FROM ledger.agent_task r
             WHERE r.issue_id = v_task.issue_id
               AND r.agent_id = v_task.agent_id
               AND r.runtime_id = v_task.runtime_id
               AND r.session_id IS NOT NULL
               AND r.id <> v_task.id
             ORDER BY r.session_id, coalesce(r.dispatched_at, r.created_at) DESC, r.id DESC) latest
     WHERE NOT EXISTS (SELECT 1 FROM ledger.poisoned_failure_reason p
                        WHERE p.failure_reason = latest.failure_reason)
       AND NOT EXISTS (SELECT 1 FROM ledger.retired_session s WHERE s.session_id = latest.session_id)
     ORDER BY latest.at DESC, latest.id DESC
     LIMIT 1;
    RETURN v_id;
END
$$;

COMMENT ON FUNCTION ledger._resumed_task(bigint) IS
'The earlier agent_task row whose session a claim of this task resumes: none when force_fresh_session; the rerun source when it is for the same agent, issue and runtime and has a session; else the newest latest-row-per-session of the same agent, issue and runtime, skipping poisoned (ledger.poisoned_failure_reason) and retired (ledger.retired_session) sessions. (task_id) -> bigint or NULL. Raises LD005.';
