-- Trigger _120_redelivery on ledger.merge: a redelivered commit (the same sha
-- or an abbreviation) must match the recorded merge (LD007); after the
-- values are normalised by _100_prepare and _110_branch.
DROP TRIGGER IF EXISTS _120_redelivery ON ledger.merge;
CREATE TRIGGER _120_redelivery
    BEFORE INSERT ON ledger.merge
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_merge__check_redelivery();
