DROP TRIGGER IF EXISTS _320_settle_rechecks ON ledger.finding;

CREATE TRIGGER _320_settle_rechecks
    AFTER UPDATE OF superseded_at ON ledger.finding
    FOR EACH ROW
    WHEN (OLD.superseded_at IS NULL AND NEW.superseded_at IS NOT NULL)
    EXECUTE FUNCTION ledger.tg_finding__settle_rechecks();
