"""create_publication for logical replication

Frozen files:

* functions/create_publication.sql

0 ALTER FUNCTION, 0 COMMENT ON, 1 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0046_create_publication_for_logi
Revises: 0045_refuse_contradicting_added
Create Date: 2026-12-07 05:40:28.693581

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0046_create_publication_for_logi'
down_revision = '0045_refuse_contradicting_added'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
