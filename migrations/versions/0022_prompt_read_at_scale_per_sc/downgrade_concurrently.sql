-- 0022_prompt_read_at_scale_per_sc undone: run outside a transaction, before downgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_prompt_order_idx;
