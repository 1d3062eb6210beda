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
