"""Issue 15: decisions that hold on real histories.

Revision ID: 0003_decisions_on_real_histories
Revises: 0002_harden_hostile_input
Create Date: 2026-12-01 11:01:51.145440

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0003_decisions_on_real_histories'
down_revision = '0002_harden_hostile_input'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
