-- 0049_anchor_moves_kept_anchors_a: anchor moves, kept anchors and the pre-filter cost less

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0048_floor_no_kept_anchor_rows_f']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0049_anchor_moves_kept_anchors_a expects the database at 0048_floor_no_kept_anchor_rows_f, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_match_changes.sql
\ir functions/tg_finding__prepare.sql
\ir functions/tg_merge__supersede.sql
\ir functions/_message_may_match.sql
\ir functions/_merge_decisions.sql
\ir functions/_apply_merge.sql
