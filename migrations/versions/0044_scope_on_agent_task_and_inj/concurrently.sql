-- 0044_scope_on_agent_task_and_inj: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_scope_idx;
CREATE INDEX CONCURRENTLY agent_task_scope_idx ON ledger.agent_task (scope, id);
DROP INDEX CONCURRENTLY IF EXISTS ledger.injection_scope_idx;
CREATE INDEX CONCURRENTLY injection_scope_idx ON ledger.injection (scope, session_id);
