-- 0034_pg_temp_last_in_every_pinne undone: run outside a transaction, before downgrade.sql

REINDEX INDEX CONCURRENTLY ledger.finding_active_evidence_idx;
