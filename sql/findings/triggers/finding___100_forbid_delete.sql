-- Trigger _100_forbid_delete on ledger.finding: nothing is ever deleted.
DROP TRIGGER IF EXISTS _100_forbid_delete ON ledger.finding;
CREATE TRIGGER _100_forbid_delete
    BEFORE DELETE ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__forbid_delete();
