-- 0010_sha_lookup_in_byte_order: Sha lookup in byte order

-- The index ledger._recorded_merge now probes,
-- merge_scope_commit_sha_bytes_idx, is built by concurrently.sql, which
-- also drops merge_scope_commit_sha_c_idx (no lock on ledger.merge here).
\ir functions/_recorded_merge.sql
