-- 0005_merge_cost_the_anchor_lane: merge cost: the anchor lane of _apply_merge; _match_changes reads the hunks once and searches long sorted files

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0004_one_anchor_record_per_merge']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0005_merge_cost_the_anchor_lane expects the database at 0004_one_anchor_record_per_merge, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean);
\ir functions/_match_changes.sql
\ir functions/_touch_counts.sql
\ir functions/_merge_decisions.sql
\ir functions/tg_merge__supersede.sql
\ir functions/_check_merge_changes.sql
\ir functions/_apply_merge.sql
REVOKE EXECUTE ON FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._touch_counts(jsonb, text[], text) FROM PUBLIC;
