"""merge cost: the anchor lane of _apply_merge; _match_changes reads the hunks once and searches long sorted files

Frozen files:

* functions/_match_changes.sql
* functions/_merge_decisions.sql
* functions/tg_merge__supersede.sql
* functions/_check_merge_changes.sql
* functions/_apply_merge.sql

0 ALTER FUNCTION, 0 COMMENT ON, 1 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0005_merge_cost_the_anchor_lane
Revises: 0004_one_anchor_record_per_merge
Create Date: 2026-12-07 18:17:04.486192

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0005_merge_cost_the_anchor_lane'
down_revision = '0004_one_anchor_record_per_merge'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
