-- Trigger _300_paths_insert on ledger.finding: the paths of the inserted
-- active findings into ledger.finding_path, once per statement.
DROP TRIGGER IF EXISTS _300_paths_insert ON ledger.finding;
CREATE TRIGGER _300_paths_insert
    AFTER INSERT ON ledger.finding
    REFERENCING NEW TABLE AS new_finding
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.tg_finding__paths_insert();
