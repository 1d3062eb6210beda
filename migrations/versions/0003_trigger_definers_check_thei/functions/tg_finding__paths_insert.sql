CREATE OR REPLACE FUNCTION ledger.tg_finding__paths_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_RELID <> 'ledger.finding'::regclass THEN
        RAISE EXCEPTION 'ledger.tg_finding__paths_insert() runs only as a trigger on ledger.finding, not on %', TG_RELID::regclass
            USING ERRCODE = 'LD403';
    END IF;
    INSERT INTO ledger.finding_path (scope, path, finding_id)
    SELECT DISTINCT n.scope, p.path, n.id
      FROM new_finding n CROSS JOIN LATERAL unnest(n.paths) AS p(path)
     WHERE n.superseded_at IS NULL;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__paths_insert() IS
'AFTER INSERT statement trigger on ledger.finding (transition table new_finding): the distinct (scope, path, id) of every path of the inserted active findings into ledger.finding_path, in one INSERT per statement. SECURITY DEFINER: no role writes ledger.finding_path. Raises LD403 when fired for a table other than ledger.finding (the only table it is attached to).';
