-- 0049_anchor_moves_kept_anchors_a undone: the frozen state before it

\ir ../0034_pg_temp_last_in_every_pinne/functions/tg_finding__prepare.sql
\ir ../0030_path_keys_built_once_per_me/functions/tg_merge__supersede.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/_match_changes.sql
\ir ../0034_pg_temp_last_in_every_pinne/functions/_message_may_match.sql
\ir ../0048_floor_no_kept_anchor_rows_f/functions/_merge_decisions.sql
\ir ../0035_apply_merge_holds_the_decis/functions/_apply_merge.sql
ALTER FUNCTION ledger._apply_merge(bigint, boolean) SET plan_cache_mode = force_generic_plan;
COMMENT ON FUNCTION ledger._apply_merge(bigint, boolean) IS
'What one merge decides (shared by the _200_supersede trigger and reconcile): ledger._merge_decisions (path rule with line anchors, change kinds and causality, commit-message rules, touch modes, checks, scope policy). hygiene_mode on: audit rows first (superseded, check_requested, recheck_requested, flagged, ambiguous, anchor_moved, candidate, mention, skipped, not_before_observed; none for an anchor that did not move), then supersedes, moves anchors, queues recheck requests, opens file-state requests (answered at once when added/deleted decide the check) and settles them in merge order; dry: would_supersede, would_recheck, would_flag, anchors move; off: nothing. Findings locked in id order FOR NO KEY UPDATE; a lost race is audited already_superseded. (merge_id bigint, may_match boolean: the message pre-filter''s answer or NULL) -> void. Raises nothing.';
