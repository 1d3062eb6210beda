-- 0044_scope_on_agent_task_and_inj undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_scope_idx;
DROP INDEX CONCURRENTLY IF EXISTS ledger.injection_scope_idx;
