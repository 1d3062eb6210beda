-- Trigger _200_supersede on ledger.merge: the path rule, after the row is in.
DROP TRIGGER IF EXISTS _200_supersede ON ledger.merge;
CREATE TRIGGER _200_supersede
    AFTER INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__supersede();
