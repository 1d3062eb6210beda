-- 0015_reconcile_lowercases_shas: reconcile lowercases shas

\ir functions/reconcile.sql
