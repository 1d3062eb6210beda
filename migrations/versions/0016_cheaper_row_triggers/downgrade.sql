-- 0016_cheaper_row_triggers undone: restores the frozen files it replaced

\ir ../0003_decisions_on_real_histories/functions/tg_finding__prepare.sql
\ir ../0002_harden_hostile_input/functions/tg_merge__prepare.sql
\ir ../0004_perf_import_and_claim/functions/tg_finding__lifecycle.sql
\ir ../0005_plpgsql_typed_array_literal/functions/tg_finding__prepare_evidence.sql
\ir ../0001_baseline/functions/tg_scoped__check_access.sql
