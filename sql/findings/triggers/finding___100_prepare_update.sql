-- Trigger _100_prepare_update on ledger.finding: ledger.tg_finding__prepare
-- before every update of a written column, except an update that moves
-- anchors and nothing else (what a merge's anchor move writes), which the
-- WHEN condition keeps as given without calling the function:
--   * anchors change, and every other column the function prepares is as
--     stored (stored values are normal already, so the function would return
--     them unchanged);
--   * the new anchors are kept as written by ledger._anchors_kept (the one
--     definition, which the function asks too): a non-empty object of
--     [first, last] pairs of 1-10 digit integers, 1 <= first <= last <=
--     2147483647, every key one of the row's one-dimensional paths and no
--     directory;
--   * no path carries a line suffix (:<digit>), which the function would
--     turn into an anchor.
-- (A NULL anywhere counts as not such an update.)
-- On a row as the triggers store it, that is exactly the set of anchors the
-- function keeps as given with the rest of the row unchanged
-- (tests/sql/test_anchor_fast_path.py compares both ways on random
-- anchors); a row written without triggers whose paths hold a NULL or are
-- not one-dimensional runs the function, which refuses those paths.
-- Everything else, an update that leaves the anchors as they are included
-- (reconcile's paths = paths), runs the function and gets its errors. The
-- condition is evaluated in the executor, with no PL/pgSQL call and no
-- query (docs/performance.md).
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
