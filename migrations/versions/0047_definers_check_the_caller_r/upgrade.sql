-- 0047_definers_check_the_caller_r: definers check the caller role

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0046_create_publication_for_logi']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0047_definers_check_the_caller_r expects the database at 0046_create_publication_for_logi, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_require_role.sql
\ir functions/lint_check.sql
\ir functions/record_merge.sql
\ir functions/record_merges.sql
\ir functions/claim_task.sql
\ir functions/renew_task_lease.sql
\ir functions/start_task.sql
\ir functions/complete_task.sql
\ir functions/fail_task.sql
\ir functions/cancel_task.sql
\ir functions/requeue_task.sql
\ir functions/_report_finding.sql
\ir functions/report_finding.sql
\ir functions/replace_findings.sql
\ir functions/dismiss_finding.sql
\ir functions/restore_finding.sql
\ir functions/import_finding.sql
\ir functions/record_file_states.sql
\ir functions/claim_rechecks.sql
\ir functions/answer_recheck.sql
\ir functions/verify_finding.sql
\ir functions/reconcile.sql
REVOKE EXECUTE ON FUNCTION ledger._report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._require_role(name, text) FROM PUBLIC;
