DROP TRIGGER IF EXISTS _300_paths_insert ON ledger.finding;

CREATE TRIGGER _300_paths_insert
    AFTER INSERT ON ledger.finding
    REFERENCING NEW TABLE AS new_finding
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_finding__paths_insert();
