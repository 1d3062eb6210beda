-- Trigger _200_supersede on ledger.merge: once per statement, after its rows
-- are in, what each merge the statement inserted decides, in id order (the
-- path rule, the message rules, reverts).
DROP TRIGGER IF EXISTS _200_supersede ON ledger.merge;
CREATE TRIGGER _200_supersede
    AFTER INSERT ON ledger.merge
    REFERENCING NEW TABLE AS new_merges
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_merge__supersede();
