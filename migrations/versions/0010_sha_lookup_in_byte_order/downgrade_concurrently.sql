-- 0010_sha_lookup_in_byte_order undone: run outside a transaction, before downgrade.sql.
-- Rerunnable.
DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_c_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS merge_scope_commit_sha_c_idx ON ledger.merge (scope, commit_sha COLLATE pg_catalog."C");
DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_bytes_idx;
