DROP TRIGGER IF EXISTS _100_prepare_update ON ledger.finding;

CREATE TRIGGER _100_prepare_update
    BEFORE UPDATE OF scope, finding_key, kind, severity, title, description, paths, source,
                     observed_at, expects, anchors, task_group
    ON ledger.finding
    FOR EACH ROW
    WHEN (NOT coalesce(
              NEW.anchors IS DISTINCT FROM OLD.anchors
              AND (NEW.scope, NEW.finding_key, NEW.kind, NEW.severity, NEW.title, NEW.description, NEW.paths,
                   NEW.source, NEW.observed_at, NEW.expects, NEW.task_group)
                  IS NOT DISTINCT FROM (OLD.scope, OLD.finding_key, OLD.kind, OLD.severity, OLD.title,
                                        OLD.description, OLD.paths, OLD.source, OLD.observed_at, OLD.expects,
                                        OLD.task_group)
              AND ledger._anchors_kept(NEW.anchors, NEW.paths)
              AND array_to_string(NEW.paths, E'\x01') !~ ':[0-9]',
              false))
    EXECUTE FUNCTION ledger.tg_finding__prepare();
