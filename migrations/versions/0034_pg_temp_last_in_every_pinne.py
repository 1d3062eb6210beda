"""pg_temp last in every pinned search_path

Frozen files:

* functions/_visible_scopes.sql
* functions/_check_text.sql
* functions/_check_scope.sql
* functions/_check_timestamp.sql
* functions/_check_time_bounds.sql
* functions/_check_commit_sha.sql
* functions/_ensure_scope.sql
* functions/_path_keys.sql
* functions/_unquote_path.sql
* functions/normalize_path.sql
* functions/normalize_paths.sql
* functions/_recorded_merge.sql
* functions/_match_changes.sql
* functions/_check_resolved_when.sql
* functions/_check_paths.sql
* functions/_eval_check.sql
* functions/_merge_file_states.sql
* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* functions/tg_scope__prepare.sql
* functions/tg_finding__prepare.sql
* functions/tg_finding__prepare_check.sql
* functions/tg_merge__prepare.sql
* functions/_insert_merges.sql
* functions/read_audit.sql
* functions/set_hygiene_mode.sql
* functions/active_findings.sql
* functions/_snapshot_version.sql
* functions/issue_snapshot.sql
* functions/_snapshot_changes.sql
* functions/_check_task_transition.sql
* functions/tg_issue__prepare.sql
* functions/tg_agent_task__prepare.sql
* functions/tg_agent_task__guard_snapshot.sql
* functions/_resumed_row.sql
* functions/_reopen_finding.sql
* functions/tg_finding__lifecycle.sql
* functions/tg_finding__forbid_delete.sql
* functions/_check_json_shape.sql
* functions/read_finding.sql
* functions/tg_supersession__notify.sql
* functions/read_finding_events.sql
* functions/tg_injection__prepare.sql
* functions/record_injection.sql
* functions/read_injections.sql
* functions/measure_convergence.sql
* functions/read_prompt_findings.sql
* functions/read_history.sql
* functions/_words.sql
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
* functions/tg_merge__prepare_branch.sql
* functions/tg_merge__check_redelivery.sql
* functions/tg_merge__immutable.sql
* functions/tg_merge__prepare_changes.sql
* functions/workspace_scope.sql
* functions/set_match_policy.sql
* functions/_scope_visible.sql
* functions/_check_scope_access.sql
* functions/tg_scoped__check_access.sql
* functions/tg_supersession__append_only.sql
* functions/_revert_targets.sql
* functions/_settle_checks.sql
* functions/_apply_merge.sql
* functions/_apply_revert.sql
* functions/_other_merge_of_commit.sql
* functions/enable_scope_rls.sql
* functions/disable_scope_rls.sql

Revision ID: 0034_pg_temp_last_in_every_pinne
Revises: 0033_drop_the_unused_scoped_evid
Create Date: 2026-12-06 03:57:13.378080

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0034_pg_temp_last_in_every_pinne'
down_revision = '0033_drop_the_unused_scoped_evid'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
