"""merge cost: anchor moves skip the finding trigger, leaner probe keys, deleted directories on the fast path

Frozen files:

* functions/tg_finding__prepare.sql
* triggers/finding___100_prepare.sql
* triggers/finding___100_prepare_update.sql
* functions/_token_keys.sql
* functions/_check_merge_changes.sql
* functions/tg_merge__prepare_changes.sql

0 ALTER FUNCTION, 1 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0006_merge_cost_anchor_moves_ski
Revises: 0005_merge_cost_the_anchor_lane
Create Date: 2026-12-07 20:56:56.741271

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0006_merge_cost_anchor_moves_ski'
down_revision = '0005_merge_cost_the_anchor_lane'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
