DROP TRIGGER IF EXISTS _310_active_totals_update ON ledger.finding;

CREATE TRIGGER _310_active_totals_update
    AFTER UPDATE ON ledger.finding
    REFERENCING OLD TABLE AS old_finding NEW TABLE AS new_finding
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_finding__active_totals();
