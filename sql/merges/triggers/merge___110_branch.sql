-- Trigger _110_branch on ledger.merge: branch normalisation after _100_prepare.
DROP TRIGGER IF EXISTS _110_branch ON ledger.merge;
CREATE TRIGGER _110_branch
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare_branch();
