-- 0011_statement_merge_trigger undone: restores the frozen files it replaced

DROP FUNCTION ledger._path_keys(p_paths text[]);
\ir ../0001_baseline/functions/tg_merge__supersede.sql
\ir ../0007_merge_trigger_phase_2/functions/_apply_merge.sql
\ir ../0005_plpgsql_typed_array_literal/functions/_apply_revert.sql
\ir ../0007_merge_trigger_phase_2/functions/reconcile.sql
\ir ../0001_baseline/functions/tg_merge__revert.sql
\ir ../0001_baseline/triggers/merge___200_supersede.sql
\ir ../0001_baseline/triggers/merge___300_revert.sql
-- tables/merge.sql: its header comment only (no ALTER)

\ir ../0008_record_merges_in_batches/privileges.sql
