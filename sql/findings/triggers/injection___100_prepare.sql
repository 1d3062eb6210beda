-- Trigger _100_prepare on ledger.injection: validation before every write.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.injection;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE ON ledger.injection
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_injection__prepare();
