-- 0002, outside the revision's transaction (docs/dba.md): the byte-order
-- index on (scope, commit_sha) that finds the recorded shas an abbreviated
-- one stands for (ledger._recorded_merge), then the evidence index rebuilt
-- with the ASCII-only lower-casing of _evidence_keys, _evidence_token and
-- _title_sig (on a database whose collation is not C, keys of tokens with
-- non-ASCII capitals or, under tr-TR, an I change). Rerunnable.
DROP INDEX CONCURRENTLY IF EXISTS ledger.merge_scope_commit_sha_c_idx;
CREATE INDEX CONCURRENTLY IF NOT EXISTS merge_scope_commit_sha_c_idx ON ledger.merge (scope, commit_sha COLLATE pg_catalog."C");
REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;
