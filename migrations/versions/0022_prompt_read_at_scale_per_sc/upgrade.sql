-- 0022_prompt_read_at_scale_per_sc: prompt read at scale: per-scope active totals and the prompt-order index

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0021_writer_times_bounded_redeli']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0022_prompt_read_at_scale_per_sc expects the database at 0021_writer_times_bounded_redeli, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir tables/scope_active_total.sql
\ir functions/tg_finding__active_totals.sql
\ir functions/read_prompt_findings.sql
\ir functions/reconcile.sql
-- indexes/finding_prompt_order_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir triggers/finding___310_active_totals_insert.sql
\ir triggers/finding___310_active_totals_update.sql
CREATE POLICY scope_isolation ON ledger.scope_active_total
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
-- per-scope row-level security already on (ledger.enable_scope_rls): on for the new table too
DO $$
BEGIN
    IF (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.finding'::regclass) THEN
        ALTER TABLE ledger.scope_active_total ENABLE ROW LEVEL SECURITY;
    END IF;
END
$$;
-- the totals of the findings already there (the triggers above hold the
-- table's lock until this transaction ends, so no write falls between)
INSERT INTO ledger.scope_active_total (scope, findings, chars)
SELECT f.scope, count(*), sum(length(f.title) + coalesce(1 + length(f.description), 0))
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL
 GROUP BY f.scope;

\ir privileges.sql
