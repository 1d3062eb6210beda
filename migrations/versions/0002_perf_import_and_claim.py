"""perf import and claim

Frozen files:

* functions/_ensure_scope.sql
* functions/_snapshot_changes.sql
* functions/_write_issue_snapshot.sql
* functions/claim_task.sql
* functions/tg_finding__lifecycle.sql
* functions/_revert_targets.sql

Revision ID: 0002_perf_import_and_claim
Revises: 0001_baseline
Create Date: 2026-12-01 10:10:22.011740

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_perf_import_and_claim'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
