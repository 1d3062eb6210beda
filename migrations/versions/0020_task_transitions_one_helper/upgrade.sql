-- 0020_task_transitions_one_helper: task transitions one helper

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0019_hunks_per_finding']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0020_task_transitions_one_helper expects the database at 0019_hunks_per_finding, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger._match_paths(p_scope text, p_paths text[]);
-- dropped: functions/_match_paths.sql
DROP FUNCTION ledger._resumed_task(p_task_id bigint);
-- dropped: functions/_resumed_task.sql
DROP FUNCTION ledger._scoped_paths(p_scope text, p_paths text[]);
-- dropped: functions/_scoped_paths.sql
DROP FUNCTION ledger._write_issue_snapshot(p_task_id bigint, p_dispatch_count integer);
-- dropped: functions/_write_issue_snapshot.sql
\ir comments/tables/scope.sql
\ir comments/tables/finding.sql
\ir comments/views/active_finding.sql
\ir comments/views/finding_lifecycle.sql
\ir functions/_scoped_evidence_keys.sql
\ir functions/_set_task_status.sql
DROP FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text);
\ir functions/claim_task.sql
\ir functions/start_task.sql
\ir functions/complete_task.sql
\ir functions/fail_task.sql
\ir functions/cancel_task.sql
\ir functions/requeue_task.sql
\ir functions/_match_message.sql
\ir comments/functions/_apply_revert.sql
\ir privileges.sql
