-- ledger.tg_merge__revert() -> trigger (AFTER INSERT ON ledger.merge, FOR EACH ROW;
-- fires after _200_supersede)
--
-- Reverts reopen (issue 5): a merge whose message says git's
-- "This reverts commit <sha>." for a merge recorded in the same scope
-- reopens exactly the findings that merge superseded and that are still
-- superseded by it (audited 'reopened', rule 'revert'); dismissed or since
-- re-superseded ones are audited 'not_reopened', an unknown sha
-- 'revert_unknown'; hygiene_mode 'dry' writes 'would_reopen', 'off' does
-- nothing. The rule itself is ledger._apply_revert(merge_id), shared with
-- ledger.reconcile; see there for the audit rows and the lock order.
-- SECURITY DEFINER (fixed search_path, schema-qualified names): a writer
-- that may only INSERT merges still gets the findings reopened and audited,
-- although it may not UPDATE findings nor write ledger.supersession.
-- Raises nothing of its own.
CREATE OR REPLACE FUNCTION ledger.tg_merge__revert()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM ledger._apply_revert(NEW.id);
    RETURN NULL;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__revert() IS
'AFTER INSERT row trigger on ledger.merge, through ledger._apply_revert: a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. SECURITY DEFINER so that writers get the same effect. Raises nothing.';
