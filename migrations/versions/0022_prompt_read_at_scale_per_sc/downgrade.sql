-- 0022_prompt_read_at_scale_per_sc undone: restores the frozen files it replaced

DROP TRIGGER _310_active_totals_update ON ledger.finding;
DROP TRIGGER _310_active_totals_insert ON ledger.finding;
DROP FUNCTION ledger.tg_finding__active_totals();
\ir ../0003_decisions_on_real_histories/functions/read_prompt_findings.sql
\ir ../0015_reconcile_lowercases_shas/functions/reconcile.sql
DROP POLICY scope_isolation ON ledger.scope_active_total;

DROP TABLE ledger.scope_active_total;
\ir ../0021_writer_times_bounded_redeli/privileges.sql
