DROP TRIGGER IF EXISTS _010_immutable ON ledger.merge;

CREATE TRIGGER _010_immutable
    BEFORE UPDATE ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__immutable();
