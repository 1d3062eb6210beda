"""drop the unused _scoped_evidence_keys

Frozen files:

* privileges.sql

Revision ID: 0033_drop_the_unused_scoped_evid
Revises: 0032_one_tokeniser_for_pre_filte
Create Date: 2026-12-06 03:20:09.047558

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0033_drop_the_unused_scoped_evid'
down_revision = '0032_one_tokeniser_for_pre_filte'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
