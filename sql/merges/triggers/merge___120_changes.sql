-- Trigger _120_changes on ledger.merge: added, deleted and hunks validated
-- and normalised after _100_prepare has normalised paths (and again when
-- ledger.reconcile normalises a merge written without triggers).
DROP TRIGGER IF EXISTS _120_changes ON ledger.merge;
CREATE TRIGGER _120_changes
    BEFORE INSERT OR UPDATE OF paths, added, deleted, hunks ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare_changes();
