-- 0004_perf_import_and_claim undone: restores the frozen files it replaced

\ir ../0001_baseline/functions/_ensure_scope.sql
\ir ../0001_baseline/functions/_snapshot_changes.sql
\ir ../0001_baseline/functions/_write_issue_snapshot.sql
\ir ../0001_baseline/functions/claim_task.sql
\ir ../0002_harden_hostile_input/functions/tg_finding__lifecycle.sql
\ir ../0002_harden_hostile_input/functions/_revert_targets.sql
