DROP TRIGGER IF EXISTS _200_supersede ON ledger.merge;

CREATE TRIGGER _200_supersede
    AFTER INSERT ON ledger.merge
    REFERENCING NEW TABLE AS new_merges
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_merge__supersede();
