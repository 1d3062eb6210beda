-- 0007_merge_trigger_phase_2: merge trigger phase 2

-- dropped: indexes/finding_active_paths_idx.sql
\ir tables/finding_path.sql
\ir functions/_scoped_paths.sql
\ir functions/_match_paths.sql
\ir functions/_match_changes.sql
\ir functions/tg_finding__paths_insert.sql
\ir functions/tg_finding__paths_update.sql
\ir functions/_match_message.sql
\ir functions/_message_may_match.sql
\ir functions/_merge_decisions.sql
\ir functions/_apply_merge.sql
\ir functions/reconcile.sql
\ir triggers/finding___300_paths_insert.sql
\ir triggers/finding___300_paths_update.sql
-- Backfill: the paths of every active finding. After the triggers, whose
-- CREATE TRIGGER holds finding's SHARE ROW EXCLUSIVE lock until commit, so
-- no finding written concurrently is missed (the statement's snapshot is
-- taken after the lock) and none is written twice.
INSERT INTO ledger.finding_path (scope, path, finding_id)
SELECT DISTINCT f.scope, p.path, f.id
  FROM ledger.finding f CROSS JOIN LATERAL unnest(f.paths) AS p(path)
 WHERE f.superseded_at IS NULL;
\ir privileges.sql
