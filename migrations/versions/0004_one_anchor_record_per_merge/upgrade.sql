-- 0004_one_anchor_record_per_merge: one anchor record per merge for anchors moved within their files

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0003_trigger_definers_check_thei']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0004_one_anchor_record_per_merge expects the database at 0003_trigger_definers_check_thei, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

-- indexes/supersession_anchor_moves_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir functions/_anchor_moves.sql
\ir functions/read_audit.sql
\ir functions/read_history.sql
\ir functions/_merge_audit.sql
\ir functions/record_merge.sql
\ir functions/record_merges.sql
\ir functions/_apply_merge.sql
\ir functions/reconcile.sql
COMMENT ON TABLE ledger.supersession IS
'The audit trail: one row per decision, written in the same transaction as the change it records, before the finding changes; the anchors a merge only moved within their files are one row of the merge, its anchor record (finding_id NULL, action anchor_moved, detail {"moves": {"<path>": {"<finding_id>": [from_first, from_last, to_first, to_last]}}}; ledger._anchor_moves reads it per finding). action: superseded, would_supersede (dry mode), already_superseded (a concurrent merge won), ... rule: path, ... evidence: the touched path (or text) that matched.';
REVOKE EXECUTE ON FUNCTION ledger._anchor_moves(jsonb, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._merge_audit(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._anchor_moves(jsonb, bigint) TO ledger_admin, ledger_reader;
