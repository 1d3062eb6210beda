-- 0010_sha_lookup_in_byte_order undone: restores the frozen files it replaced
-- (downgrade_concurrently.sql has put merge_scope_commit_sha_c_idx back).

\ir ../0002_harden_hostile_input/functions/_recorded_merge.sql
