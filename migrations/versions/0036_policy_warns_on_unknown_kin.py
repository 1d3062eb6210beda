"""policy warns on unknown kind

Frozen files:

* functions/set_match_policy.sql

Revision ID: 0036_policy_warns_on_unknown_kin
Revises: 0035_apply_merge_holds_the_decis
Create Date: 2026-12-07 02:54:48.956009

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0036_policy_warns_on_unknown_kin'
down_revision = '0035_apply_merge_holds_the_decis'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
