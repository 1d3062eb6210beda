-- 0002_release_0_2_0 undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_bytes_idx;
DROP INDEX CONCURRENTLY IF EXISTS ledger.injection_scope_idx;
DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_lease_idx;
DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_scope_idx;
DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_prompt_order_idx;
REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;
