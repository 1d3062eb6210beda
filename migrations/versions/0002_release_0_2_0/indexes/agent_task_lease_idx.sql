CREATE INDEX agent_task_lease_idx ON ledger.agent_task (runtime_id, lease_expires_at, id)
    WHERE status IN ('dispatched', 'running') AND lease_expires_at IS NOT NULL;
