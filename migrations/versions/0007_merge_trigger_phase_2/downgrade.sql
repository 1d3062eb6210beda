-- 0007_merge_trigger_phase_2 undone: restores the frozen files it replaced

DROP TRIGGER _300_paths_update ON ledger.finding;
DROP TRIGGER _300_paths_insert ON ledger.finding;
DROP FUNCTION ledger._message_may_match(p_scope text, p_message text);
DROP FUNCTION ledger.tg_finding__paths_update();
DROP FUNCTION ledger.tg_finding__paths_insert();
\ir ../0001_baseline/functions/_scoped_paths.sql
\ir ../0001_baseline/functions/_match_paths.sql
\ir ../0006_anchors_follow_renames/functions/_match_changes.sql
\ir ../0003_decisions_on_real_histories/functions/_match_message.sql
\ir ../0006_anchors_follow_renames/functions/_merge_decisions.sql
\ir ../0006_anchors_follow_renames/functions/_apply_merge.sql
\ir ../0003_decisions_on_real_histories/functions/reconcile.sql
DROP TABLE ledger.finding_path;
\ir ../0003_decisions_on_real_histories/privileges.sql
