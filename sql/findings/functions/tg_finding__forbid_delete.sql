-- ledger.tg_finding__forbid_delete() -> trigger (BEFORE DELETE ON ledger.finding)
--
-- Nothing is ever deleted: a finding leaves the prompts by being
-- superseded or dismissed and keeps its text and its audit. Every DELETE of
-- a finding row fails with LD304 naming the finding, with a HINT naming
-- ledger.dismiss_finding. Raises LD304.
CREATE OR REPLACE FUNCTION ledger.tg_finding__forbid_delete()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RAISE EXCEPTION 'findings are never deleted: DELETE of finding % (scope %) refused', OLD.id, quote_literal(OLD.scope)
        USING ERRCODE = 'LD304',
              HINT = 'Retire it with ledger.dismiss_finding(id, resolution, actor, reason); it stays in the audit.';
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__forbid_delete() IS
'BEFORE DELETE trigger on ledger.finding: refuses every delete with LD304 (findings are dismissed or superseded, never deleted); the HINT names ledger.dismiss_finding.';
