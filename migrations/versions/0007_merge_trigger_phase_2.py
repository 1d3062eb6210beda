"""merge trigger phase 2

Frozen files:

* tables/finding_path.sql
* functions/_scoped_paths.sql
* functions/_match_paths.sql
* functions/_match_changes.sql
* functions/tg_finding__paths_insert.sql
* functions/tg_finding__paths_update.sql
* functions/_message_may_match.sql
* functions/_merge_decisions.sql
* triggers/finding___300_paths_insert.sql
* triggers/finding___300_paths_update.sql
* privileges.sql

Revision ID: 0007_merge_trigger_phase_2
Revises: 0006_anchors_follow_renames
Create Date: 2026-12-01 12:50:41.162856

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0007_merge_trigger_phase_2'
down_revision = '0006_anchors_follow_renames'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
