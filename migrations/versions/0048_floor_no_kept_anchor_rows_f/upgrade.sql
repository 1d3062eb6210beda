-- 0048_floor_no_kept_anchor_rows_f: floor: no kept anchor rows, fast prepare, generic plans

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0047_definers_check_the_caller_r']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0048_floor_no_kept_anchor_rows_f expects the database at 0047_definers_check_the_caller_r, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_default_touch_mode.sql
\ir functions/_touch_mode.sql
\ir functions/_merge_decisions.sql
\ir functions/_check_merge_changes.sql
\ir functions/tg_merge__prepare_changes.sql
ALTER FUNCTION ledger._recorded_merge(text, text) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger._apply_merge(bigint, boolean) SET plan_cache_mode = force_generic_plan;
COMMENT ON FUNCTION ledger._apply_merge(bigint, boolean) IS
'What one merge decides (shared by the _200_supersede trigger and reconcile): ledger._merge_decisions (path rule with line anchors, change kinds and causality, commit-message rules, touch modes, checks, scope policy). hygiene_mode on: audit rows first (superseded, check_requested, recheck_requested, flagged, ambiguous, anchor_moved, candidate, mention, skipped, not_before_observed; none for an anchor that did not move), then supersedes, moves anchors, queues recheck requests, opens file-state requests (answered at once when added/deleted decide the check) and settles them in merge order; dry: would_supersede, would_recheck, would_flag, anchors move; off: nothing. Findings locked in id order FOR NO KEY UPDATE; a lost race is audited already_superseded. (merge_id bigint, may_match boolean: the message pre-filter''s answer or NULL) -> void. Raises nothing.';
REVOKE EXECUTE ON FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb) TO ledger_admin, ledger_writer;
