-- Trigger _100_prepare on ledger.scope: validation before every write.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.scope;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE ON ledger.scope
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_scope__prepare();
