-- 0048_floor_no_kept_anchor_rows_f undone: the frozen state before it

DROP FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb);
\ir ../0045_refuse_contradicting_added/functions/tg_merge__prepare_changes.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/_touch_mode.sql
\ir ../0036_rechecks_settle_and_file_st/functions/_merge_decisions.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/_default_touch_mode.sql
ALTER FUNCTION ledger._recorded_merge(text, text) RESET plan_cache_mode;
ALTER FUNCTION ledger._apply_merge(bigint, boolean) RESET plan_cache_mode;
COMMENT ON FUNCTION ledger._apply_merge(bigint, boolean) IS
'What one merge decides (shared by the _200_supersede trigger and reconcile): ledger._merge_decisions (path rule with line anchors, change kinds and causality, commit-message rules, touch modes, checks, scope policy). hygiene_mode on: audit rows first (superseded, check_requested, recheck_requested, flagged, ambiguous, anchor_moved, candidate, anchor_kept, mention, skipped, not_before_observed), then supersedes, moves anchors, queues recheck requests, opens file-state requests (answered at once when added/deleted decide the check) and settles them in merge order; dry: would_supersede, would_recheck, would_flag, anchors move; off: nothing. Findings locked in id order FOR NO KEY UPDATE; a lost race is audited already_superseded. (merge_id bigint, may_match boolean: the message pre-filter''s answer or NULL) -> void. Raises nothing.';
