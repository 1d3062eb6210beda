-- 0002_pl_pgsql_typed_array_litera undone: restores the frozen files it replaced

\ir ../0001_baseline/functions/normalize_paths.sql
\ir ../0001_baseline/functions/_snapshot_changes.sql
\ir ../0001_baseline/functions/replace_findings.sql
\ir ../0001_baseline/functions/_message_tokens.sql
\ir ../0001_baseline/functions/tg_finding__prepare_evidence.sql
\ir ../0001_baseline/functions/_apply_merge.sql
\ir ../0001_baseline/functions/_apply_revert.sql
