-- ledger.tg_finding__paths_update() -> trigger (AFTER UPDATE OF scope, paths,
-- superseded_at ON ledger.finding FOR EACH ROW, when the row's active paths
-- change; trigger _300_paths_update)
--
-- Keeps ledger.finding_path equal to the paths of the active findings
-- (superseded_at IS NULL) when a finding changes: the old row's rows go if
-- it was active, the new row's come if it is active. So a supersession or
-- dismissal only deletes, a reopen (re-report, revert, restore) only
-- inserts, and a paths or scope change of an active finding replaces them.
-- The AFTER row events of a statement fire at its end, so the merge that
-- supersedes a finding, and every later merge of the same INSERT, sees the
-- table as it is after the supersession. SECURITY DEFINER (fixed
-- search_path, schema-qualified names): the supersede trigger and the
-- lifecycle functions update findings, and no role may write
-- ledger.finding_path. Raises nothing of its own.
-- Checks no caller role (ledger._require_role): no ledger role may UPDATE
-- ledger.finding, so it fires only for the owner and inside the definers,
-- each of which checked its own caller's role (a writer's merge or
-- re-report, an admin's dismissal, an agent's verdict): one role here would
-- refuse the others.
CREATE OR REPLACE FUNCTION ledger.tg_finding__paths_update()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF OLD.superseded_at IS NULL THEN
        DELETE FROM ledger.finding_path fp
         WHERE fp.scope = OLD.scope AND fp.path = ANY (OLD.paths) AND fp.finding_id = OLD.id;
    END IF;
    IF NEW.superseded_at IS NULL THEN
        INSERT INTO ledger.finding_path (scope, path, finding_id)
        SELECT DISTINCT NEW.scope, p.path, NEW.id FROM unnest(NEW.paths) AS p(path);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__paths_update() IS
'AFTER UPDATE row trigger on ledger.finding (scope, paths or superseded_at, when the active paths change): the old row''s ledger.finding_path rows go if it was active, the new row''s come if it is active. SECURITY DEFINER: no role writes ledger.finding_path. Raises nothing.';
