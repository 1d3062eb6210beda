"""Performance, phase 1 (issue 12): linear imports and a cheaper claim.

Revision ID: 0004_perf_import_and_claim
Revises: 0003_decisions_on_real_histories
Create Date: 2026-12-01 11:06:21.759217

Replaces functions only (no table lock beyond what CREATE OR REPLACE takes):

* tg_finding__lifecycle plans its duplicate-key lookup on every call, and
  _ensure_scope never scans: one INSERT ... SELECT of many findings into a
  freshly migrated database is linear (the cached generic plan chosen while
  the table was empty was a sequential scan per row);
* claim_task writes the snapshot in the UPDATE that dispatches the task and
  reads the task and its issue in one statement (_write_issue_snapshot,
  _snapshot_changes as one expression);
* _revert_targets names only merges recorded before the revert, so a
  multi-row INSERT reverts exactly what the same rows one by one revert.

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0004_perf_import_and_claim'
down_revision = '0003_decisions_on_real_histories'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
