-- 0034_pg_temp_last_in_every_pinne: run outside a transaction, after upgrade.sql

REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;
