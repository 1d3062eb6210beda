-- 0007_merge_trigger_phase_2 undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_active_paths_idx;
CREATE INDEX CONCURRENTLY finding_active_paths_idx ON ledger.finding
    USING gin (ledger._scoped_paths(scope, paths)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
