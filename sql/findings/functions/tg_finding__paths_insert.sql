-- ledger.tg_finding__paths_insert() -> trigger (AFTER INSERT ON ledger.finding
-- FOR EACH STATEMENT, transition table new_finding; trigger _300_paths_insert)
--
-- Files the paths of the findings a statement inserted active (single-row,
-- multi-row, COPY, INSERT ... SELECT, ON CONFLICT DO NOTHING) in
-- ledger.finding_path: one INSERT of their distinct (scope, path, id) for
-- the whole statement. ledger.tg_finding__paths_update keeps the table
-- right when findings change afterwards. SECURITY DEFINER (fixed
-- search_path, schema-qualified names): writers insert findings, and no role
-- may write ledger.finding_path. Raises nothing of its own.
-- Checks no caller role (ledger._require_role): it fires for whoever may
-- INSERT into ledger.finding, and that is the gate: the table privilege
-- (ledger_writer's; the owner's alone after a restore without privileges)
-- or a definer that checked its caller (report_finding, replace_findings,
-- import_finding).
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
