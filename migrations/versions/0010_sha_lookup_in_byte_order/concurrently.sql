-- 0010_sha_lookup_in_byte_order: run outside a transaction, after upgrade.sql.
-- Both columns in byte order, so that no other index can serve the
-- conditions of ledger._recorded_merge. Rerunnable.
DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_bytes_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS merge_scope_commit_sha_bytes_idx ON ledger.merge (scope COLLATE pg_catalog."C", commit_sha COLLATE pg_catalog."C");
DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_c_idx;
