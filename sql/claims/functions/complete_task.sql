-- ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL) -> ledger.agent_task
--
-- The run delivered: running -> completed, completed_at = now (clock).
-- p_session_id records the provider session the run ended in (NULL keeps the
-- current session_id). A completed row with started_at set is what proves
-- delivery, so only it can later date a delta. Returns the row.
-- Raises LD005 not_found, LD201 (not running), LD003/LD004 (p_session_id).
-- SECURITY DEFINER (fixed search_path), granted to ledger_agent, which has
-- no UPDATE on ledger.agent_task (a direct UPDATE could dispatch a task
-- outside ledger.claim_task). The lock, the check and the UPDATE are
-- ledger._set_task_status's, as for every task transition.
-- The caller must hold ledger_agent (ledger._require_role, before any table is read
-- or written; LD403 otherwise), so a lost REVOKE of its EXECUTE is not an
-- escalation.
CREATE OR REPLACE FUNCTION ledger.complete_task(p_task_id bigint, p_session_id text DEFAULT NULL)
RETURNS ledger.agent_task
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT ledger._require_role('ledger_agent', 'ledger.complete_task');
    SELECT * FROM ledger._set_task_status(p_task_id, 'completed', p_session_id, NULL)
$$;

COMMENT ON FUNCTION ledger.complete_task(bigint, text) IS
'Complete a running task: status completed, completed_at set, optionally the final session_id. (task_id, session_id) -> ledger.agent_task. SECURITY DEFINER (ledger_agent). Raises LD005, LD201 (not running), LD003/LD004. The caller must hold ledger_agent, else LD403.';
