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
