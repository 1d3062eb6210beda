-- 0021_writer_times_bounded_redeli: writer times bounded, redelivery compares change kinds and serialises abbreviations, hunks bounded, anchors keys once

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0020_task_transitions_one_helper']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0021_writer_times_bounded_redeli expects the database at 0020_task_transitions_one_helper, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_check_timestamp.sql
\ir functions/_check_time_bounds.sql
\ir functions/tg_finding__prepare.sql
\ir functions/tg_merge__prepare.sql
\ir functions/tg_issue__prepare.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/tg_merge__prepare_changes.sql
\ir privileges.sql
