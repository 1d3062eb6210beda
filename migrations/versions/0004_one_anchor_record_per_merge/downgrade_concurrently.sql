-- 0004_one_anchor_record_per_merge undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.supersession_anchor_moves_idx;
