-- 0011_statement_merge_trigger: Statement merge trigger

DROP TRIGGER _300_revert ON ledger.merge;
-- dropped: triggers/merge___300_revert.sql
DROP FUNCTION ledger.tg_merge__revert();
-- dropped: functions/tg_merge__revert.sql
-- tables/merge.sql: its header comment only (no ALTER)

\ir functions/_path_keys.sql
\ir functions/tg_merge__supersede.sql
\ir functions/_apply_merge.sql
\ir functions/_apply_revert.sql
\ir functions/reconcile.sql
\ir triggers/merge___200_supersede.sql
\ir ../0008_record_merges_in_batches/privileges.sql
