CREATE INDEX merge_scope_commit_sha_bytes_idx ON ledger.merge (scope COLLATE pg_catalog."C", commit_sha COLLATE pg_catalog."C");
