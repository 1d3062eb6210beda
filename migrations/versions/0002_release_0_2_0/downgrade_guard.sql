-- The guard of 0002_release_0_2_0's downgrade: refuses (SQLSTATE LD501) while a
-- column or table the downgrade drops holds data an upgrade cannot give back
-- (a value other than NULL or the column's default, a row of a dropped
-- table), naming the revision, each column or table and its count, unless
-- the setting ledger.allow_data_loss is 'true'. downgrade.sql includes it
-- first; migrations/env.py also runs it before a downgrade past this
-- revision starts, so a refused downgrade changes nothing.
--   alembic downgrade <revision> -x allow_data_loss=true
--   PGOPTIONS='-c ledger.allow_data_loss=true' psql -f downgrade.sql
DO $guard$
DECLARE
    v_counts text;
BEGIN
    IF coalesce(current_setting('ledger.allow_data_loss', true), '') = 'true' THEN
        RETURN;
    END IF;
    WITH c(what, n) AS (
        SELECT 'ledger.agent_task.lease_expires_at', (SELECT count(*) FROM ledger.agent_task WHERE lease_expires_at IS NOT NULL)
        UNION ALL SELECT 'ledger.agent_task.scope', (SELECT count(*) FROM ledger.agent_task WHERE scope IS NOT NULL)
        UNION ALL SELECT 'ledger.file_state_request', (SELECT count(*) FROM ledger.file_state_request)
        UNION ALL SELECT 'ledger.finding.observed_at', (SELECT count(*) FROM ledger.finding WHERE observed_at IS NOT NULL)
        UNION ALL SELECT 'ledger.finding.expects', (SELECT count(*) FROM ledger.finding WHERE expects IS DISTINCT FROM 'change'::text)
        UNION ALL SELECT 'ledger.finding.anchors', (SELECT count(*) FROM ledger.finding WHERE anchors IS NOT NULL)
        UNION ALL SELECT 'ledger.finding.task_group', (SELECT count(*) FROM ledger.finding WHERE task_group IS NOT NULL)
        UNION ALL SELECT 'ledger.finding.resolved_when', (SELECT count(*) FROM ledger.finding WHERE resolved_when IS NOT NULL)
        UNION ALL SELECT 'ledger.finding.observed_at_precision', (SELECT count(*) FROM ledger.finding WHERE observed_at_precision IS DISTINCT FROM 'instant'::text)
        UNION ALL SELECT 'ledger.injection.scope', (SELECT count(*) FROM ledger.injection WHERE scope IS NOT NULL)
        UNION ALL SELECT 'ledger.merge.added', (SELECT count(*) FROM ledger.merge WHERE added IS NOT NULL)
        UNION ALL SELECT 'ledger.merge.deleted', (SELECT count(*) FROM ledger.merge WHERE deleted IS NOT NULL)
        UNION ALL SELECT 'ledger.merge.hunks', (SELECT count(*) FROM ledger.merge WHERE hunks IS NOT NULL)
        UNION ALL SELECT 'ledger.recheck_request', (SELECT count(*) FROM ledger.recheck_request)
        UNION ALL SELECT 'ledger.scope.line_context', (SELECT count(*) FROM ledger.scope WHERE line_context IS DISTINCT FROM 0)
        UNION ALL SELECT 'ledger.scope.touch_modes', (SELECT count(*) FROM ledger.scope WHERE touch_modes IS DISTINCT FROM '{}'::jsonb)
    )
    SELECT string_agg(format('%s: %s', what, n), ', ' ORDER BY what) FILTER (WHERE n > 0)
      INTO v_counts
      FROM c;
    IF v_counts IS NOT NULL THEN
        RAISE EXCEPTION 'downgrade of 0002_release_0_2_0 would drop data (%)', v_counts
            USING ERRCODE = 'LD501',
                  HINT = 'Back the database up, then pass -x allow_data_loss=true to alembic '
                         '(or set ledger.allow_data_loss = true for psql) to drop it.';
    END IF;
END
$guard$;
