-- 0007_finding_path_side_table: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_active_paths_idx;
