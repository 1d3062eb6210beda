-- Downgrade below the baseline: drops every object of the ledger schema but
-- alembic's version table, then the four roles where nothing else uses them.
--
-- Refuses while the ledger holds data (SQLSTATE LD501, with the row count of
-- every table) unless the setting ledger.allow_data_loss is 'true':
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

-- In dependency order, never CASCADE (an object of someone else's that
-- depends on the ledger makes the downgrade fail instead of vanishing):
-- functions whose arguments or result are ledger row types, the views, the
-- tables (their policies, triggers, indexes and constraints go with them),
-- then every other function of the schema (all of them are the ledger's).
DO $drop$
DECLARE
    v_function regprocedure;
BEGIN
    FOR v_function IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
         WHERE p.pronamespace = 'ledger'::regnamespace
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_type t
                        WHERE t.typnamespace = 'ledger'::regnamespace
                          AND (t.oid = p.prorettype OR t.oid = ANY (p.proargtypes::oid[])))
         ORDER BY p.oid DESC
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_function);
    END LOOP;
    DROP VIEW ledger.finding_lifecycle, ledger.active_finding;
    DROP TABLE ledger.injection, ledger.supersession, ledger.agent_task, ledger.issue, ledger.finding,
               ledger.merge, ledger.scope, ledger.poisoned_failure_reason, ledger.retired_session;
    FOR v_function IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
         WHERE p.pronamespace = 'ledger'::regnamespace ORDER BY p.oid DESC
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_function);
    END LOOP;
END
$drop$;

REVOKE ALL ON SCHEMA ledger FROM ledger_writer, ledger_reader, ledger_agent, ledger_admin;
DO $roles$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['ledger_writer', 'ledger_reader', 'ledger_agent', 'ledger_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role) THEN
            CONTINUE;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members a JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
                    WHERE r.rolname = v_role) THEN
            RAISE NOTICE 'role % kept: other roles are members of it', v_role;
            CONTINUE;
        END IF;
        BEGIN
            EXECUTE format('DROP ROLE %I', v_role);
        EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
            RAISE NOTICE 'role % kept: %', v_role, SQLERRM;
        END;
    END LOOP;
END
$roles$;
