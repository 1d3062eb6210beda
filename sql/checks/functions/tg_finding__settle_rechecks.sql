-- ledger.tg_finding__settle_rechecks() -> trigger (AFTER UPDATE OF
-- superseded_at ON ledger.finding FOR EACH ROW, when a finding leaves the
-- active set; trigger _320_settle_rechecks)
--
-- A finding retired by any rule (a merge's path or message rule, a check,
-- a recheck answer, a re-review, a dismissal) has its recheck requests
-- that are not settled yet made moot at once (ledger._settle_rechecks on
-- the retired finding), in the transaction that retires it: they are no
-- longer claimable, and a later answer changes nothing. The finding's row
-- is locked by the UPDATE that fires this. SECURITY DEFINER (fixed
-- search_path, schema-qualified names): no role may update the recheck
-- queue. Raises LD403 (role_required) when fired for any table but ledger.finding:
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
CREATE OR REPLACE FUNCTION ledger.tg_finding__settle_rechecks()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_RELID <> 'ledger.finding'::regclass THEN
        RAISE EXCEPTION 'ledger.tg_finding__settle_rechecks() runs only as a trigger on ledger.finding, not on %', TG_RELID::regclass
            USING ERRCODE = 'LD403';
    END IF;
    IF EXISTS (SELECT 1 FROM ledger.recheck_request r WHERE r.finding_id = NEW.id AND r.outcome IS NULL) THEN
        PERFORM ledger._settle_rechecks(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__settle_rechecks() IS
'AFTER UPDATE row trigger on ledger.finding (superseded_at, when a finding leaves the active set): its recheck requests not settled yet become moot (ledger._settle_rechecks). SECURITY DEFINER: no role writes the recheck queue. Raises LD403 when fired for a table other than ledger.finding (the only table it is attached to).';
