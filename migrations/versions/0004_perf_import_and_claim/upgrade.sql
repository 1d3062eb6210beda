-- 0004_perf_import_and_claim: perf import and claim

\ir functions/_ensure_scope.sql
\ir functions/_snapshot_changes.sql
\ir functions/_write_issue_snapshot.sql
\ir functions/claim_task.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/_revert_targets.sql
