"""Task transitions through one helper; dead functions and a column dropped

start_task, complete_task, fail_task, cancel_task and requeue_task each
locked the task, checked the move and updated it in the same block; they
are now one-statement SQL wrappers of the new ledger._set_task_status
(not granted: they call it as the owner), with the same errors and
SQLSTATEs. Dropped: ledger._match_paths, ledger._resumed_task and
ledger._write_issue_snapshot (no function called them), and claim_task's
snapshot_written column (always true; claim_task is dropped and created
again, since its result type changes). ledger._scoped_paths, which builds
evidence keys, is renamed ledger._scoped_evidence_keys (ledger._match_message
calls it by the new name). Five COMMENT ON statements say what a rule is
instead of naming tracker issues and seeds (comments/). privileges.sql runs
again. No table changes.

Frozen files:

* functions/_scoped_evidence_keys.sql
* functions/_set_task_status.sql
* functions/claim_task.sql
* functions/start_task.sql
* functions/complete_task.sql
* functions/fail_task.sql
* functions/cancel_task.sql
* functions/requeue_task.sql
* functions/_match_message.sql
* privileges.sql
* comments/tables/scope.sql (its COMMENT ON statements only)
* comments/tables/finding.sql (its COMMENT ON statements only)
* comments/views/active_finding.sql (its COMMENT ON statements only)
* comments/views/finding_lifecycle.sql (its COMMENT ON statements only)
* comments/functions/_apply_revert.sql (its COMMENT ON statements only)

Revision ID: 0020_task_transitions_one_helper
Revises: 0019_hunks_per_finding
Create Date: 2026-12-02 05:03:55.897021

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0020_task_transitions_one_helper'
down_revision = '0019_hunks_per_finding'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
