DROP TRIGGER IF EXISTS _120_check ON ledger.finding;

CREATE TRIGGER _120_check
    BEFORE INSERT OR UPDATE OF resolved_when, paths, observed_at_precision
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare_check();
