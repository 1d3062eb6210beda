-- Trigger _310_active_totals_update on ledger.finding: ledger.scope_active_total
-- follows findings superseded, dismissed or reopened, and active findings
-- whose scope, title or description change, once per statement. (A trigger
-- with transition tables cannot name columns: it fires for every UPDATE and
-- appends nothing when the totals stay.)
DROP TRIGGER IF EXISTS _310_active_totals_update ON ledger.finding;
CREATE TRIGGER _310_active_totals_update
    AFTER UPDATE ON ledger.finding
    REFERENCING OLD TABLE AS old_finding NEW TABLE AS new_finding
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_finding__active_totals();
