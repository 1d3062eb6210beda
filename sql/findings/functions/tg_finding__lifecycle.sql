-- ledger.tg_finding__lifecycle() -> trigger (BEFORE INSERT OR UPDATE OF the
-- lifecycle columns ON ledger.finding; fires after _100_prepare)
--
-- Identity: a plain INSERT (single row, multi-row, COPY, ledger.add_finding)
-- of a finding whose (scope, finding_key) is already in the ledger fails
-- with LD301 and a HINT naming ledger.report_finding, which is the one way
-- to report a finding again (it counts the re-report, reopens a superseded
-- finding, leaves a dismissed one dismissed). The unique constraint
-- finding_scope_finding_key_key stays the backstop (23505) for two
-- transactions inserting the same new key at once. ledger.report_finding
-- itself inserts with ON CONFLICT DO NOTHING under the transaction-local
-- setting ledger.reporting = 'on', which skips this check.
--
-- Consistency of the lifecycle columns, however they are written:
--   resolution    NULL or accepted | false_positive | wont_fix | duplicate
--                 (case-insensitive, '-' accepted for '_'), else LD003;
--   dismissed_at  set  -> resolution required and superseded_at set (a
--                         dismissed finding is never active), else LD305;
--   dismissed_at  NULL -> resolution, dismissed_by, dismissal_reason NULL,
--                         else LD305;
--   report_count, reopen_count: NULL -> their defaults (1, 0).
-- Raises LD301, LD003, LD305, each naming the field and the value.
--
-- Plans: the duplicate-key lookup keeps one cached generic plan for the
-- session, and that plan is always an index scan of
-- finding_scope_finding_key_key, whatever the table's size or statistics:
--   SET enable_seqscan = off   no sequential scan, also after ANALYZE of a
--                              small table;
--   (f.scope, f.finding_key) >= (NEW.scope, NEW.finding_key)
--                              redundant next to the two equalities (the
--                              same rows), but an index condition only the
--                              unique index (scope, finding_key) can take in
--                              full: it breaks the tie with
--                              finding_scope_slug_key (scope, slug), whose
--                              cost equals the unique index's while the
--                              table looks empty and which would walk every
--                              row of the scope (one INSERT ... SELECT of N
--                              findings: O(N^2)).
-- (docs/performance.md, "Importing findings"); tests/sql/test_import_plan.py
-- checks the plan.
CREATE OR REPLACE FUNCTION ledger.tg_finding__lifecycle()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET enable_seqscan = off
AS $$
DECLARE
    v_existing bigint;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.finding_key IS NOT NULL
           AND coalesce(current_setting('ledger.reporting', true), '') <> 'on' THEN
            SELECT f.id INTO v_existing FROM ledger.finding f
             WHERE f.scope = NEW.scope AND f.finding_key = NEW.finding_key
               AND (f.scope, f.finding_key) >= (NEW.scope, NEW.finding_key);
            IF FOUND THEN
                RAISE EXCEPTION 'duplicate finding.finding_key: % is already reported in scope % (finding %)',
                    quote_literal(NEW.finding_key), quote_literal(NEW.scope), v_existing
                    USING ERRCODE = 'LD301',
                          HINT = 'Report a finding again with ledger.report_finding(p_scope, p_finding_key, p_title, ...): '
                                 'it counts the re-report, reopens a superseded finding and keeps a dismissed one dismissed.';
            END IF;
        END IF;
        NEW.report_count := coalesce(NEW.report_count, 1);
        NEW.reopen_count := coalesce(NEW.reopen_count, 0);
    END IF;

    IF NEW.resolution IS NOT NULL THEN
        NEW.resolution := replace(lower(btrim(NEW.resolution) COLLATE "C"), '-', '_');
        IF NEW.resolution NOT IN ('accepted', 'false_positive', 'wont_fix', 'duplicate') THEN
            RAISE EXCEPTION 'invalid finding.resolution: % (expected accepted, false_positive, wont_fix or duplicate)',
                quote_literal(NEW.resolution) USING ERRCODE = 'LD003';
        END IF;
    END IF;

    IF NEW.dismissed_at IS NOT NULL THEN
        IF NEW.resolution IS NULL THEN
            RAISE EXCEPTION 'inconsistent finding %: finding.dismissed_at is % but finding.resolution is NULL',
                coalesce(NEW.id::text, 'new'), NEW.dismissed_at
                USING ERRCODE = 'LD305', HINT = 'Dismiss with ledger.dismiss_finding(id, resolution, actor, reason).';
        END IF;
        IF NEW.superseded_at IS NULL THEN
            RAISE EXCEPTION 'inconsistent finding %: finding.dismissed_at is % but finding.superseded_at is NULL (a dismissed finding is never active)',
                coalesce(NEW.id::text, 'new'), NEW.dismissed_at
                USING ERRCODE = 'LD305', HINT = 'Reopen a dismissed finding with ledger.restore_finding(id, actor, reason).';
        END IF;
    ELSIF NEW.resolution IS NOT NULL OR NEW.dismissed_by IS NOT NULL OR NEW.dismissal_reason IS NOT NULL THEN
        RAISE EXCEPTION 'inconsistent finding %: finding.resolution %, finding.dismissed_by % or finding.dismissal_reason set while finding.dismissed_at is NULL',
            coalesce(NEW.id::text, 'new'), quote_nullable(NEW.resolution), quote_nullable(NEW.dismissed_by)
            USING ERRCODE = 'LD305', HINT = 'Dismiss with ledger.dismiss_finding(id, resolution, actor, reason).';
    END IF;
    RETURN NEW;
END
$$;

COMMENT ON FUNCTION ledger.tg_finding__lifecycle() IS
'BEFORE INSERT/UPDATE trigger on ledger.finding: a plain INSERT of an already reported (scope, finding_key) raises LD301 with a HINT naming ledger.report_finding; resolution must be accepted, false_positive, wont_fix or duplicate (LD003); dismissed_at requires resolution and superseded_at, dismissal columns require dismissed_at (LD305).';
