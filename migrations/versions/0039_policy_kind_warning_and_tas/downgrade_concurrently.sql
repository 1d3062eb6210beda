-- 0039_policy_kind_warning_and_tas undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_lease_idx;
