-- 0037_task_claim_leases: task claim leases

-- tables/agent_task.sql (written by hand): the lease column, the index of expired leases, its comment
ALTER TABLE ledger.agent_task ADD COLUMN lease_expires_at timestamptz;
CREATE INDEX agent_task_lease_idx ON ledger.agent_task (runtime_id, lease_expires_at, id)
    WHERE status IN ('dispatched', 'running') AND lease_expires_at IS NOT NULL;
COMMENT ON COLUMN ledger.agent_task.lease_expires_at IS
'Until when the runtime that claimed the task holds it (ledger.claim_task with p_lease; extended by ledger.renew_task_lease). NULL: claimed without a lease, held until the task ends. Once it has passed, a task still dispatched or running is claimable again: the claim that takes it over fails it with failure_reason lease_expired and dispatches a rerun of it. Written only by those two functions.';

DROP FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text);
\ir functions/claim_task.sql
\ir functions/renew_task_lease.sql
\ir privileges.sql
