CREATE OR REPLACE FUNCTION ledger.tg_finding__paths_insert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO ledger.finding_path (scope, path, finding_id)
    SELECT DISTINCT n.scope, p.path, n.id
      FROM new_finding n CROSS JOIN LATERAL unnest(n.paths) AS p(path)
     WHERE n.superseded_at IS NULL;
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__paths_insert() IS
'AFTER INSERT statement trigger on ledger.finding (transition table new_finding): the distinct (scope, path, id) of every path of the inserted active findings into ledger.finding_path, in one INSERT per statement. SECURITY DEFINER: no role writes ledger.finding_path. Raises nothing.';
