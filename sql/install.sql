-- The current schema of findings-ledger, by topic: psql -f sql/install.sql on an empty
-- database builds exactly what alembic upgrade head builds (tests/migrations/test_schema_drift.py
-- compares the catalogs). Every object has one file, sql/<topic>/<kind>/<name>.sql. The tables
-- come first, by topic (their foreign keys cross the topics); then a section per topic holds its
-- views, functions, indexes and triggers (a section opens again later when one of its objects
-- needs another topic's: an SQL function's body, a view, an index or a signature names it);
-- the policies and the grants come last. tools/new_revision.py compares
-- the objects these files define with what the revisions build, object by object (whatever
-- file each is in: moving a file writes no revision).

-- the schema and the roles
\ir common/schema.sql
\ir access/roles.sql

-- common tables
\ir common/tables/scope.sql

-- merges tables
\ir merges/tables/merge.sql

-- findings tables
\ir findings/tables/finding.sql
\ir findings/tables/finding_path.sql
\ir findings/tables/scope_active_total.sql
\ir findings/tables/supersession.sql
\ir findings/tables/injection.sql

-- claims tables
\ir claims/tables/issue.sql
\ir claims/tables/agent_task.sql
\ir claims/tables/poisoned_failure_reason.sql
\ir claims/tables/retired_session.sql

-- checks tables
\ir checks/tables/file_state_request.sql
\ir checks/tables/recheck_request.sql

-- common: scopes, the input checks every topic uses, path normalisation
\ir common/functions/_check_text.sql
\ir common/functions/_unicode_class.sql
\ir common/functions/_commit_subject.sql
\ir common/functions/_check_scope.sql
\ir common/functions/_check_timestamp.sql
\ir common/functions/_check_time_bounds.sql
\ir common/functions/_check_commit_sha.sql
\ir common/functions/_text_kept.sql
\ir common/functions/_scope_kept.sql
\ir common/functions/_ensure_scope.sql
\ir common/functions/_unquote_path.sql
\ir common/functions/normalize_path.sql
\ir common/functions/normalize_paths.sql
\ir common/functions/tg_scope__prepare.sql
\ir common/functions/set_hygiene_mode.sql
\ir common/functions/_check_json_shape.sql
\ir common/functions/workspace_scope.sql
\ir common/functions/create_publication.sql
\ir common/triggers/scope___100_prepare.sql

-- access: row-level security: the visible scopes, the scope-access triggers, enabling it
\ir access/functions/_visible_scopes.sql
\ir access/functions/_require_role.sql
\ir access/functions/_scope_visible.sql
\ir access/functions/_check_scope_access.sql
\ir access/functions/tg_scoped__check_access.sql
\ir access/functions/enable_scope_rls.sql
\ir access/functions/disable_scope_rls.sql
\ir access/triggers/finding___050_scope_access.sql
\ir access/triggers/issue___050_scope_access.sql
\ir access/triggers/merge___050_scope_access.sql
\ir access/triggers/scope___050_scope_access.sql

-- findings: findings, their paths and totals, the audit, the lifecycle, injections, the prompt read path, verdicts
\ir findings/views/active_finding.sql
\ir findings/functions/_finding_state.sql
\ir findings/views/finding_lifecycle.sql
\ir findings/functions/_severity_rank.sql
\ir findings/functions/_anchors_kept.sql
\ir findings/functions/tg_finding__prepare.sql
\ir findings/functions/add_finding.sql
\ir findings/functions/_anchor_moves.sql
\ir findings/functions/read_audit.sql
\ir findings/functions/active_findings.sql
\ir findings/functions/_reopen_finding.sql
\ir findings/functions/tg_finding__lifecycle.sql
\ir findings/functions/tg_finding__forbid_delete.sql
\ir findings/functions/tg_finding__paths_insert.sql
\ir findings/functions/tg_finding__paths_update.sql
\ir findings/functions/tg_finding__active_totals.sql
\ir findings/functions/_report_finding.sql
\ir findings/functions/report_finding.sql
\ir findings/functions/replace_findings.sql
\ir findings/functions/read_finding.sql
\ir findings/functions/dismiss_finding.sql
\ir findings/functions/restore_finding.sql
\ir findings/functions/tg_supersession__notify.sql
\ir findings/functions/read_finding_events.sql
\ir findings/functions/tg_injection__prepare.sql
\ir findings/functions/record_injection.sql
\ir findings/functions/read_injections.sql
\ir findings/functions/measure_convergence.sql
\ir findings/functions/_finding_touches.sql
\ir findings/functions/read_prompt_findings.sql
\ir findings/functions/read_prompt_text.sql
\ir findings/functions/read_history.sql
\ir findings/functions/import_finding.sql
\ir findings/functions/tg_supersession__append_only.sql
\ir findings/functions/verify_finding.sql
\ir findings/indexes/finding_prompt_order_idx.sql
\ir findings/triggers/finding___100_forbid_delete.sql
\ir findings/triggers/finding___100_prepare.sql
\ir findings/triggers/finding___100_prepare_update.sql
\ir findings/triggers/finding___200_lifecycle.sql
\ir findings/triggers/finding___300_paths_insert.sql
\ir findings/triggers/finding___300_paths_update.sql
\ir findings/triggers/finding___310_active_totals_insert.sql
\ir findings/triggers/finding___310_active_totals_update.sql
\ir findings/triggers/injection___100_prepare.sql
\ir findings/triggers/supersession___010_append_only.sql
\ir findings/triggers/supersession___011_append_only_truncate.sql
\ir findings/triggers/supersession___100_notify.sql

-- claims: issues, agent tasks and their claims and snapshots
\ir claims/functions/_snapshot_version.sql
\ir claims/functions/issue_snapshot.sql
\ir claims/functions/_snapshot_changes.sql
\ir claims/functions/_check_task_transition.sql
\ir claims/functions/_set_task_status.sql
\ir claims/functions/tg_issue__prepare.sql
\ir claims/functions/tg_agent_task__prepare.sql
\ir claims/functions/tg_agent_task__guard_snapshot.sql
\ir claims/functions/_resumed_row.sql
\ir claims/functions/claim_task.sql
\ir claims/functions/renew_task_lease.sql
\ir claims/functions/start_task.sql
\ir claims/functions/complete_task.sql
\ir claims/functions/fail_task.sql
\ir claims/functions/cancel_task.sql
\ir claims/functions/requeue_task.sql
\ir claims/functions/add_issue.sql
\ir claims/functions/enqueue_task.sql
\ir claims/triggers/agent_task___100_prepare.sql
\ir claims/triggers/agent_task___200_guard_snapshot.sql
\ir claims/triggers/issue___100_prepare.sql

-- checks: checks (resolved_when): validation and lint, file-state requests, rechecks
\ir checks/views/pending_file_state.sql
\ir checks/functions/_pattern_traps.sql
\ir checks/functions/_check_pattern.sql
\ir checks/functions/_check_resolved_when.sql
\ir checks/functions/validate_check.sql
\ir checks/functions/_check_paths.sql
\ir checks/functions/_eval_check.sql
\ir checks/functions/_check_leaves.sql
\ir checks/functions/_lint_stubs.sql
\ir checks/functions/lint_check.sql
\ir checks/functions/_merge_file_states.sql
\ir checks/functions/tg_finding__prepare_check.sql
\ir checks/functions/_overruled_by_person.sql
\ir checks/functions/_settle_rechecks.sql
\ir checks/functions/tg_finding__settle_rechecks.sql
\ir checks/functions/_settle_checks.sql
\ir checks/functions/record_file_states.sql
\ir checks/functions/claim_rechecks.sql
\ir checks/functions/answer_recheck.sql
\ir checks/functions/pending_file_states.sql
\ir checks/triggers/finding___120_check.sql
\ir checks/triggers/finding___320_settle_rechecks.sql

-- decisions: what a merge decides: the message matcher, evidence keys, touch modes, match policy
\ir decisions/functions/_path_keys.sql
\ir decisions/functions/_match_changes.sql
\ir decisions/functions/_default_touch_mode.sql
\ir decisions/functions/_touch_mode.sql
\ir decisions/functions/_touch_counts.sql
\ir decisions/functions/_token_chars.sql
\ir decisions/functions/_token_regex.sql
\ir decisions/functions/_token_split_regex.sql
\ir decisions/functions/_words.sql
\ir decisions/functions/_significant.sql
\ir decisions/functions/_evidence_token.sql
\ir decisions/functions/_file_slug.sql
\ir decisions/functions/_object_ends.sql
\ir decisions/functions/_title_sig.sql
\ir decisions/functions/_evidence_keys.sql
\ir decisions/functions/_tokenise.sql
\ir decisions/functions/_token_keys.sql
\ir decisions/functions/_message_segments.sql
\ir decisions/functions/_message_tokens.sql
\ir decisions/functions/_match_message.sql
\ir decisions/functions/_message_probe_keys.sql
\ir decisions/functions/_message_may_match.sql
\ir decisions/functions/_merge_decisions.sql
\ir decisions/functions/tg_finding__prepare_evidence.sql
\ir decisions/functions/tg_scope__prepare_policy.sql
\ir decisions/functions/set_match_policy.sql
\ir decisions/indexes/finding_active_evidence_idx.sql
\ir decisions/triggers/finding___110_evidence.sql
\ir decisions/triggers/scope___110_policy.sql

-- merges: the merge table and its triggers, the writers, reverts, reconcile
\ir merges/functions/_recorded_merge.sql
\ir merges/functions/tg_merge__prepare.sql
\ir merges/functions/tg_merge__supersede.sql
\ir merges/functions/_merge_audit.sql
\ir merges/functions/record_merge.sql
\ir merges/functions/_insert_merges.sql
\ir merges/functions/record_merges.sql
\ir merges/functions/_normalize_branch.sql
\ir merges/functions/tg_merge__prepare_branch.sql
\ir merges/functions/tg_merge__check_redelivery.sql
\ir merges/functions/tg_merge__immutable.sql
\ir merges/functions/_check_merge_changes.sql
\ir merges/functions/tg_merge__prepare_changes.sql
\ir merges/functions/_revert_targets.sql
\ir merges/functions/_apply_merge.sql
\ir merges/functions/_apply_revert.sql
\ir merges/functions/_other_merge_of_commit.sql
\ir merges/functions/reconcile.sql
\ir merges/triggers/merge___010_immutable.sql
\ir merges/triggers/merge___100_prepare.sql
\ir merges/triggers/merge___110_branch.sql
\ir merges/triggers/merge___120_redelivery.sql
\ir merges/triggers/merge___120_changes.sql
\ir merges/triggers/merge___200_supersede.sql

-- access: the row-level security policies and the grants, last (they name every object)
\ir access/policies.sql
\ir access/privileges.sql
