DROP TRIGGER IF EXISTS _300_paths_update ON ledger.finding;

CREATE TRIGGER _300_paths_update
    AFTER UPDATE OF scope, paths, superseded_at ON ledger.finding
    FOR EACH ROW
    WHEN ((OLD.superseded_at IS NULL) IS DISTINCT FROM (NEW.superseded_at IS NULL)
          OR (NEW.superseded_at IS NULL AND (OLD.paths IS DISTINCT FROM NEW.paths OR OLD.scope IS DISTINCT FROM NEW.scope)))
    EXECUTE FUNCTION ledger.tg_finding__paths_update();
