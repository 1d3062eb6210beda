DROP TRIGGER IF EXISTS _120_redelivery ON ledger.merge;

CREATE TRIGGER _120_redelivery
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__check_redelivery();
