-- 0002_release_0_2_0: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_bytes_idx;
CREATE INDEX CONCURRENTLY merge_scope_commit_sha_bytes_idx ON ledger.merge (scope COLLATE pg_catalog."C", commit_sha COLLATE pg_catalog."C");
DROP INDEX CONCURRENTLY IF EXISTS ledger.injection_scope_idx;
CREATE INDEX CONCURRENTLY injection_scope_idx ON ledger.injection (scope, session_id);
DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_lease_idx;
CREATE INDEX CONCURRENTLY agent_task_lease_idx ON ledger.agent_task (runtime_id, lease_expires_at, id)
    WHERE status IN ('dispatched', 'running') AND lease_expires_at IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS ledger.agent_task_scope_idx;
CREATE INDEX CONCURRENTLY agent_task_scope_idx ON ledger.agent_task (scope, id);
DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_prompt_order_idx;
CREATE INDEX CONCURRENTLY finding_prompt_order_idx ON ledger.finding
    (scope,
     (CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
                    WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END),
     coalesce(last_reported_at, created_at) DESC, id DESC)
    WHERE superseded_at IS NULL;
REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;
