-- Trigger _100_prepare on ledger.issue: validation (and scope creation)
-- before every insert and every update, whoever writes the row.
DROP TRIGGER IF EXISTS _100_prepare ON ledger.issue;
CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE
    ON ledger.issue
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_issue__prepare();
