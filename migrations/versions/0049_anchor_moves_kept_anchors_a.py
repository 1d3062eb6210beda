"""anchor moves, kept anchors and the pre-filter cost less

Frozen files:

* functions/_match_changes.sql
* functions/tg_finding__prepare.sql
* functions/tg_merge__supersede.sql
* functions/_message_may_match.sql
* functions/_merge_decisions.sql
* functions/_apply_merge.sql

0 ALTER FUNCTION, 0 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0049_anchor_moves_kept_anchors_a
Revises: 0048_floor_no_kept_anchor_rows_f
Create Date: 2026-12-07 06:32:34.602453

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0049_anchor_moves_kept_anchors_a'
down_revision = '0048_floor_no_kept_anchor_rows_f'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
