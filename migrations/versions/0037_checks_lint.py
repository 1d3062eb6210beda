"""checks lint

Frozen files:

* functions/_check_leaves.sql
* functions/_lint_stubs.sql
* functions/lint_check.sql
* privileges.sql

Revision ID: 0037_checks_lint
Revises: 0036_check_patterns_in_another_r
Create Date: 2026-12-07 02:59:59.088172

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0037_checks_lint'
down_revision = '0036_check_patterns_in_another_r'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
