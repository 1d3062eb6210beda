-- Trigger _300_revert on ledger.merge: a revert reopens what the reverted
-- merge superseded. Fires after _200_supersede (name order).
DROP TRIGGER IF EXISTS _300_revert ON ledger.merge;
CREATE TRIGGER _300_revert
    AFTER INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__revert();
