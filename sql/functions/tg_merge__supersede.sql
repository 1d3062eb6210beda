-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- When a merge lands, decide for every active finding of its scope that the
-- merge carries evidence about: the path rule of seed 000 "Option A" and the
-- commit-message rules of issue 3, under the scope's policy and
-- hygiene_mode (on: audit, then supersede; dry: audit would_supersede; off:
-- nothing). The rule itself is ledger._apply_merge(merge_id), shared with
-- ledger.reconcile; see there for the decisions, the audit rows and the
-- lock order. Row-level and fired in insertion order, so multi-row INSERT
-- and COPY give the same result as the same rows inserted one by one or
-- through ledger.record_merge. A redelivered merge (ON CONFLICT DO NOTHING)
-- inserts no row and so has no effect.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): a writer
-- that may only INSERT merges still gets its findings superseded and
-- audited, although it may not UPDATE the supersession columns of
-- ledger.finding nor write ledger.supersession.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._apply_merge(NEW.id);
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__supersede() IS
'AFTER INSERT row trigger on ledger.merge, through ledger._apply_merge: ledger._merge_decisions (path rule of seed 000 Option A, commit-message rules of issue 3, scope policy); hygiene_mode on: audit rows first, then supersedes; dry: would_supersede only; off: nothing. SECURITY DEFINER so that writers without UPDATE on findings or INSERT on the audit get the same effect. Raises nothing.';
