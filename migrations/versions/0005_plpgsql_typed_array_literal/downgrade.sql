-- 0005_plpgsql_typed_array_literal undone: restores the frozen files it replaced

\ir ../0002_harden_hostile_input/functions/normalize_paths.sql
\ir ../0004_perf_import_and_claim/functions/claim_task.sql
\ir ../0002_harden_hostile_input/functions/replace_findings.sql
\ir ../0003_decisions_on_real_histories/functions/_message_segments.sql
\ir ../0003_decisions_on_real_histories/functions/_message_tokens.sql
\ir ../0002_harden_hostile_input/functions/tg_finding__prepare_evidence.sql
\ir ../0002_harden_hostile_input/functions/tg_merge__check_redelivery.sql
\ir ../0003_decisions_on_real_histories/functions/_apply_merge.sql
\ir ../0001_baseline/functions/_apply_revert.sql
