-- 0003_trigger_definers_check_thei: trigger definers check their table

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0002_release_0_2_0']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0003_trigger_definers_check_thei expects the database at 0002_release_0_2_0, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/tg_finding__paths_insert.sql
\ir functions/tg_finding__paths_update.sql
\ir functions/tg_finding__active_totals.sql
\ir functions/tg_finding__settle_rechecks.sql
\ir functions/tg_merge__supersede.sql
