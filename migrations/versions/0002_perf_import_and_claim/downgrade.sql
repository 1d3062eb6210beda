-- 0002_perf_import_and_claim undone: restores the frozen files it replaced

\ir ../0001_baseline/functions/_revert_targets.sql
\ir ../0001_baseline/functions/tg_finding__lifecycle.sql
\ir ../0001_baseline/functions/claim_task.sql
\ir ../0001_baseline/functions/_write_issue_snapshot.sql
\ir ../0001_baseline/functions/_snapshot_changes.sql
\ir ../0001_baseline/functions/_ensure_scope.sql
