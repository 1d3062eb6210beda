"""release 0.2.0

Frozen files:

* tables/scope.sql
* tables/merge.sql
* indexes/merge_scope_commit_sha_bytes_idx.sql
* tables/finding.sql
* tables/finding_path.sql
* tables/scope_active_total.sql
* tables/injection.sql
* indexes/injection_scope_idx.sql
* tables/agent_task.sql
* indexes/agent_task_lease_idx.sql
* indexes/agent_task_scope_idx.sql
* tables/file_state_request.sql
* tables/recheck_request.sql
* functions/_unicode_class.sql
* functions/_commit_subject.sql
* functions/_check_scope.sql
* functions/_check_timestamp.sql
* functions/_check_time_bounds.sql
* functions/_check_commit_sha.sql
* functions/_text_kept.sql
* functions/_scope_kept.sql
* functions/_unquote_path.sql
* functions/normalize_path.sql
* functions/normalize_paths.sql
* functions/tg_scope__prepare.sql
* functions/set_hygiene_mode.sql
* functions/_check_json_shape.sql
* functions/workspace_scope.sql
* functions/create_publication.sql
* functions/_require_role.sql
* functions/tg_scoped__check_access.sql
* functions/tg_finding__prepare.sql
* functions/add_finding.sql
* functions/read_audit.sql
* functions/tg_finding__lifecycle.sql
* functions/tg_finding__paths_insert.sql
* functions/tg_finding__paths_update.sql
* functions/tg_finding__active_totals.sql
* functions/_report_finding.sql
* functions/report_finding.sql
* functions/replace_findings.sql
* functions/dismiss_finding.sql
* functions/restore_finding.sql
* functions/tg_supersession__notify.sql
* functions/read_finding_events.sql
* functions/tg_injection__prepare.sql
* functions/_finding_touches.sql
* functions/read_prompt_findings.sql
* functions/read_prompt_text.sql
* functions/read_history.sql
* functions/import_finding.sql
* functions/verify_finding.sql
* indexes/finding_prompt_order_idx.sql
* triggers/finding___100_prepare.sql
* triggers/finding___300_paths_insert.sql
* triggers/finding___300_paths_update.sql
* triggers/finding___310_active_totals_insert.sql
* triggers/finding___310_active_totals_update.sql
* functions/_snapshot_changes.sql
* functions/_set_task_status.sql
* functions/tg_issue__prepare.sql
* functions/tg_agent_task__prepare.sql
* functions/_resumed_row.sql
* functions/claim_task.sql
* functions/renew_task_lease.sql
* functions/start_task.sql
* functions/complete_task.sql
* functions/fail_task.sql
* functions/cancel_task.sql
* functions/requeue_task.sql
* views/pending_file_state.sql
* functions/_pattern_traps.sql
* functions/_check_pattern.sql
* functions/_check_resolved_when.sql
* functions/validate_check.sql
* functions/_check_paths.sql
* functions/_eval_check.sql
* functions/_check_leaves.sql
* functions/_lint_stubs.sql
* functions/lint_check.sql
* functions/_merge_file_states.sql
* functions/tg_finding__prepare_check.sql
* functions/_overruled_by_person.sql
* functions/_settle_rechecks.sql
* functions/tg_finding__settle_rechecks.sql
* functions/_settle_checks.sql
* functions/record_file_states.sql
* functions/claim_rechecks.sql
* functions/answer_recheck.sql
* functions/pending_file_states.sql
* triggers/finding___120_check.sql
* triggers/finding___320_settle_rechecks.sql
* functions/_path_keys.sql
* functions/_match_changes.sql
* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* functions/_token_chars.sql
* functions/_token_regex.sql
* functions/_token_split_regex.sql
* functions/_words.sql
* functions/_evidence_token.sql
* functions/_file_slug.sql
* functions/_object_ends.sql
* functions/_title_sig.sql
* functions/_evidence_keys.sql
* functions/_tokenise.sql
* functions/_token_keys.sql
* functions/_message_segments.sql
* functions/_message_tokens.sql
* functions/_match_message.sql
* functions/_message_probe_keys.sql
* functions/_message_may_match.sql
* functions/_merge_decisions.sql
* functions/tg_finding__prepare_evidence.sql
* functions/tg_scope__prepare_policy.sql
* functions/set_match_policy.sql
* functions/_recorded_merge.sql
* functions/tg_merge__prepare.sql
* functions/tg_merge__supersede.sql
* functions/record_merge.sql
* functions/_insert_merges.sql
* functions/record_merges.sql
* functions/tg_merge__check_redelivery.sql
* functions/tg_merge__immutable.sql
* functions/_check_merge_changes.sql
* functions/tg_merge__prepare_changes.sql
* functions/_revert_targets.sql
* functions/_apply_merge.sql
* functions/_apply_revert.sql
* functions/_other_merge_of_commit.sql
* functions/reconcile.sql
* triggers/merge___010_immutable.sql
* triggers/merge___120_redelivery.sql
* triggers/merge___120_changes.sql
* triggers/merge___200_supersede.sql
* policies/scope_active_total__scope_isolation.sql
* policies/file_state_request__scope_isolation.sql
* policies/recheck_request__scope_isolation.sql

20 ALTER FUNCTION, 19 COMMENT ON, 122 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0002_release_0_2_0
Revises: 0001_baseline
Create Date: 2026-12-07 06:41:22.924888

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_release_0_2_0'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
