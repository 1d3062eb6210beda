-- 0004_one_anchor_record_per_merge: run outside a transaction, after upgrade.sql

DROP INDEX CONCURRENTLY IF EXISTS ledger.supersession_anchor_moves_idx;
CREATE INDEX CONCURRENTLY supersession_anchor_moves_idx ON ledger.supersession (scope, id)
    WHERE finding_id IS NULL AND action = 'anchor_moved';
