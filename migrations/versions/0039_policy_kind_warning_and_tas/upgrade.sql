-- 0039_policy_kind_warning_and_tas: policy kind warning and task claim leases

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0038_check_dialects_and_checks_l']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0039_policy_kind_warning_and_tas expects the database at 0038_check_dialects_and_checks_l, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger.claim_task(text, text);
ALTER TABLE ledger.agent_task ADD COLUMN lease_expires_at timestamptz;

-- indexes/agent_task_lease_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir functions/claim_task.sql
\ir functions/renew_task_lease.sql
\ir functions/set_match_policy.sql
COMMENT ON COLUMN ledger.agent_task.lease_expires_at IS
'Until when the runtime that claimed the task holds it (ledger.claim_task with p_lease; extended by ledger.renew_task_lease). NULL: claimed without a lease, held until the task ends. Once it has passed, a task still dispatched or running is claimable again: the claim that takes it over fails it with failure_reason lease_expired and dispatches a rerun of it. Written only by those two functions.';
REVOKE EXECUTE ON FUNCTION ledger.claim_task(text, text, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.renew_task_lease(bigint, text, interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger.claim_task(text, text, interval) TO ledger_agent;
GRANT EXECUTE ON FUNCTION ledger.renew_task_lease(bigint, text, interval) TO ledger_agent;
