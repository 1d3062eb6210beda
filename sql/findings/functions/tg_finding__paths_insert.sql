-- ledger.tg_finding__paths_insert() -> trigger (AFTER INSERT ON ledger.finding
-- FOR EACH STATEMENT, transition table new_finding; trigger _300_paths_insert)
--
-- Files the paths of the findings a statement inserted active (single-row,
-- multi-row, COPY, INSERT ... SELECT, ON CONFLICT DO NOTHING) in
-- ledger.finding_path: one INSERT of their distinct (scope, path, id) for
-- the whole statement. ledger.tg_finding__paths_update keeps the table
-- right when findings change afterwards. SECURITY DEFINER (fixed
-- search_path, schema-qualified names): writers insert findings, and no role
-- may write ledger.finding_path. Raises LD403 (role_required) when fired for any table but ledger.finding:
-- its first statement compares TG_RELID with ledger.finding (one comparison
-- per statement), so a role that may EXECUTE it (PUBLIC after a restore
-- without privileges) and attaches it to a table of its own (a TEMP table
-- with the same columns and transition tables) cannot run it as the owner
-- on rows it forged. Only the owner of ledger.finding may attach a trigger
-- to it, so on ledger.finding it fires only for a write of the table, which
-- needs the table's privilege or a definer that checked its own caller's role.
-- Checks no caller role (ledger._require_role): one role here would refuse
-- the others (a writer's merge, an admin's dismissal and an agent's verdict
-- all write findings).
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
