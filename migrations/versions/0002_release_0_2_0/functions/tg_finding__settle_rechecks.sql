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
