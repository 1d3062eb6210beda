-- 0007_merge_trigger_phase_2: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_active_paths_idx;
