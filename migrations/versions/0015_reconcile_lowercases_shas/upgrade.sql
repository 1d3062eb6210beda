-- 0015_reconcile_lowercases_shas: reconcile lowercases shas

\ir functions/_check_commit_sha.sql
\ir functions/_other_merge_of_commit.sql
\ir functions/reconcile.sql
\ir privileges.sql
