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
-- ledger.finding_path. Raises LD403 (role_required) when fired for any table but ledger.finding:
-- its first statement compares TG_RELID with ledger.finding (one comparison
-- per row), so a role that may EXECUTE it (PUBLIC after a restore
-- without privileges) and attaches it to a table of its own (a TEMP table
-- with the same columns and transition tables) cannot run it as the owner
-- on rows it forged. Only the owner of ledger.finding may attach a trigger
-- to it, so on ledger.finding it fires only for a write of the table, which
-- needs the table's privilege or a definer that checked its own caller's role.
-- Checks no caller role (ledger._require_role): one role here would refuse
-- the others (a writer's merge, an admin's dismissal and an agent's verdict
-- all write findings).
CREATE OR REPLACE FUNCTION ledger.tg_finding__paths_update()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_RELID <> 'ledger.finding'::regclass THEN
        RAISE EXCEPTION 'ledger.tg_finding__paths_update() runs only as a trigger on ledger.finding, not on %', TG_RELID::regclass
            USING ERRCODE = 'LD403';
    END IF;
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
'AFTER UPDATE row trigger on ledger.finding (scope, paths or superseded_at, when the active paths change): the old row''s ledger.finding_path rows go if it was active, the new row''s come if it is active. SECURITY DEFINER: no role writes ledger.finding_path. Raises LD403 when fired for a table other than ledger.finding (the only table it is attached to).';
