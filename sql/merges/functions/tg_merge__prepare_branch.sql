-- ledger.tg_merge__prepare_branch() -> trigger (BEFORE INSERT ON ledger.merge, after _100_prepare)
--
-- Normalises merge.branch, the branch the merge landed on (docs/matching.md,
-- "default branch"): optional, trimmed, single line, <= 255 characters,
-- 'refs/heads/' dropped (ledger._normalize_branch). Every writer (INSERT,
-- COPY, ledger.record_merge) passes through here. Raises LD003, LD004
-- naming merge.branch and the value; nothing is written on error.
CREATE OR REPLACE FUNCTION ledger.tg_merge__prepare_branch()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    NEW.branch := ledger._normalize_branch(NEW.branch, 'merge.branch');
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_merge__prepare_branch() IS
'BEFORE INSERT trigger on ledger.merge: normalises branch (trim, refs/heads/ dropped, <= 255 chars). Raises LD003, LD004 naming merge.branch and the value.';
