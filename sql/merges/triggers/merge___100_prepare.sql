-- Trigger _100_prepare on ledger.merge: validation and path normalisation.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.merge;
CREATE TRIGGER _100_prepare
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare();
