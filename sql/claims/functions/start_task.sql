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
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The lock, the check and the UPDATE are
-- ledger._set_task_status's, as for every task transition.
-- The caller must hold ledger_agent (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
CREATE OR REPLACE FUNCTION ledger.start_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.start_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'running', p_session_id, NULL)
$$;

COMMENT ON FUNCTION ledger.start_task(bigint, text) IS
'Start a dispatched task: status running, started_at set, optionally the provider session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005 (unknown task), LD201 (not dispatched), LD003/LD004 (session_id). The caller must hold ledger_agent, else LD403.';
