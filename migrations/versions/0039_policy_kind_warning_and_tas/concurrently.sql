-- 0039_policy_kind_warning_and_tas: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_lease_idx;
CREATE INDEX CONCURRENTLY agent_task_lease_idx ON ledger.agent_task (runtime_id, lease_expires_at, id)
    WHERE status IN ('dispatched', 'running') AND lease_expires_at IS NOT NULL;
