DROP TRIGGER IF EXISTS _120_changes ON ledger.merge;

CREATE TRIGGER _120_changes
    BEFORE INSERT OR UPDATE OF paths, added, deleted, hunks ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__prepare_changes();
