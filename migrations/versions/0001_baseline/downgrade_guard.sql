-- The guard of a downgrade below the baseline: refuses while the ledger
-- holds data (SQLSTATE LD501, with the row count of every table) unless the
-- setting ledger.allow_data_loss is 'true'. downgrade.sql includes it;
-- migrations/env.py also runs it before a downgrade to base starts, so a
-- refused downgrade changes nothing, whatever revision the database is at.
--   alembic downgrade base -x allow_data_loss=true
--   PGOPTIONS='-c ledger.allow_data_loss=true' psql -f downgrade.sql
-- The three shipped rows of ledger.poisoned_failure_reason are not data.
DO $guard$
DECLARE
    v_counts text;
    v_total bigint;
BEGIN
    IF coalesce(current_setting('ledger.allow_data_loss', true), '') = 'true' THEN
        RETURN;
    END IF;
    WITH c(tbl, n) AS (
        SELECT 'finding', (SELECT count(*) FROM ledger.finding)
        UNION ALL SELECT 'merge', (SELECT count(*) FROM ledger.merge)
        UNION ALL SELECT 'supersession', (SELECT count(*) FROM ledger.supersession)
        UNION ALL SELECT 'injection', (SELECT count(*) FROM ledger.injection)
        UNION ALL SELECT 'scope', (SELECT count(*) FROM ledger.scope)
        UNION ALL SELECT 'issue', (SELECT count(*) FROM ledger.issue)
        UNION ALL SELECT 'agent_task', (SELECT count(*) FROM ledger.agent_task)
        UNION ALL SELECT 'retired_session', (SELECT count(*) FROM ledger.retired_session)
        UNION ALL SELECT 'poisoned_failure_reason',
            (SELECT count(*) FROM ledger.poisoned_failure_reason p
              WHERE p.failure_reason NOT IN ('context_window_exceeded', 'session_corrupted', 'session_not_found'))
    )
    SELECT string_agg(format('%s %s', n, tbl), ', ' ORDER BY tbl) FILTER (WHERE n > 0), sum(n)
      INTO v_counts, v_total
      FROM c;
    IF v_total > 0 THEN
        RAISE EXCEPTION 'downgrade below the baseline would drop % rows of the ledger (%)', v_total, v_counts
            USING ERRCODE = 'LD501',
                  HINT = 'Back the database up, then pass -x allow_data_loss=true to alembic '
                         '(or set ledger.allow_data_loss = true for psql) to drop them.';
    END IF;
END
$guard$;

