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
-- queue. Raises nothing of its own.
-- Checks no caller role (ledger._require_role): no ledger role may UPDATE
-- ledger.finding, so it fires only for the owner and inside the definers,
-- each of which checked its own caller's role (a writer's merge or
-- re-review, an admin's dismissal, an agent's verdict): one role here
-- would refuse the others.
CREATE OR REPLACE FUNCTION ledger.tg_finding__settle_rechecks()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ledger.recheck_request r WHERE r.finding_id = NEW.id AND r.outcome IS NULL) THEN
        PERFORM ledger._settle_rechecks(NEW.id);
    END IF;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__settle_rechecks() IS
'AFTER UPDATE row trigger on ledger.finding (superseded_at, when a finding leaves the active set): its recheck requests not settled yet become moot (ledger._settle_rechecks). SECURITY DEFINER: no role writes the recheck queue. Raises nothing.';
