-- 0004_one_anchor_record_per_merge undone: the frozen state before it

DROP FUNCTION ledger._merge_audit(bigint);
DROP FUNCTION ledger._anchor_moves(jsonb, bigint);
\ir ../0002_release_0_2_0/functions/read_history.sql
\ir ../0002_release_0_2_0/functions/reconcile.sql
\ir ../0002_release_0_2_0/functions/read_audit.sql
\ir ../0002_release_0_2_0/functions/record_merge.sql
\ir ../0002_release_0_2_0/functions/record_merges.sql
\ir ../0002_release_0_2_0/functions/_apply_merge.sql
COMMENT ON TABLE ledger.supersession IS
'The audit trail: one row per decision, written in the same transaction as the change it records, before the finding changes. action: superseded, would_supersede (dry mode), already_superseded (a concurrent merge won), ... rule: path, ... evidence: the touched path (or text) that matched.';
