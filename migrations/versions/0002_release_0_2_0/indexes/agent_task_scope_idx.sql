CREATE INDEX agent_task_scope_idx ON ledger.agent_task (scope, id);
