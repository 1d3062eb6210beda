-- 0015_reconcile_lowercases_shas undone: restores the frozen files it replaced

\ir ../0011_statement_merge_trigger/functions/reconcile.sql
