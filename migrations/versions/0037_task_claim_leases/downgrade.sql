-- 0037_task_claim_leases undone: restores the frozen files it replaced

DROP FUNCTION ledger.renew_task_lease(p_task_id bigint, p_runtime_id text, p_lease interval);
DROP FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text, p_lease interval);
\ir ../0020_task_transitions_one_helper/functions/claim_task.sql
-- tables/agent_task.sql (written by hand): the index and the lease column go
DROP INDEX ledger.agent_task_lease_idx;
ALTER TABLE ledger.agent_task DROP COLUMN lease_expires_at;

\ir ../0033_drop_the_unused_scoped_evid/privileges.sql
