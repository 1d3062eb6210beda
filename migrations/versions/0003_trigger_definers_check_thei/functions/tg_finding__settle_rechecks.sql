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
