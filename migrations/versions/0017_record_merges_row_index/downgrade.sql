-- 0017_record_merges_row_index undone: restores the frozen files it replaced

DROP FUNCTION ledger._insert_merges(p_scope text, p_merges jsonb);
\ir ../0008_record_merges_in_batches/functions/record_merges.sql
\ir ../0015_reconcile_lowercases_shas/privileges.sql
