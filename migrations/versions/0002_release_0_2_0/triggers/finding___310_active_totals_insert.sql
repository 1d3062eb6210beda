DROP TRIGGER IF EXISTS _310_active_totals_insert ON ledger.finding;

CREATE TRIGGER _310_active_totals_insert
    AFTER INSERT ON ledger.finding
    REFERENCING NEW TABLE AS new_finding
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_finding__active_totals();
