-- ledger.tg_merge__supersede() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW)
--
-- Seed 000, "Option A": when a merge lands, every active finding of the same
-- scope that references a path the merge touched is superseded (hygiene_mode
-- on), audited as would_supersede (dry) or left alone (off). The rule itself
-- is ledger._apply_merge(merge_id), shared with ledger.reconcile; see there
-- for the decisions, the audit rows and the lock order.
-- Row-level and fired in insertion order, so multi-row INSERT and COPY give
-- the same result as the same rows inserted one by one. A redelivered merge
-- (ON CONFLICT DO NOTHING) inserts no row and so has no effect.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): a writer
-- that may only INSERT merges still gets its findings superseded and
-- audited, although it may not UPDATE the supersession columns of
-- ledger.finding nor write ledger.supersession itself.
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
'AFTER INSERT row trigger on ledger.merge implementing seed 000 Option A through ledger._apply_merge: supersedes the active findings of the scope whose paths the merge touched (hygiene_mode on), or audits would_supersede (dry), or nothing (off). SECURITY DEFINER so that writers without UPDATE on findings or INSERT on the audit get the same effect. Raises nothing.';
