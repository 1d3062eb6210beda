DROP TRIGGER IF EXISTS _100_prepare ON ledger.finding;

CREATE TRIGGER _100_prepare
    BEFORE INSERT OR UPDATE OF scope, finding_key, kind, severity, title, description, paths, source,
                              observed_at, expects, anchors, task_group
    ON ledger.finding
    FOR EACH ROW EXECUTE FUNCTION ledger.tg_finding__prepare();
