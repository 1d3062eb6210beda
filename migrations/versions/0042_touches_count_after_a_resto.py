"""touches count after a restore or reopen

Frozen files:

* functions/_finding_touches.sql
* functions/verify_finding.sql

0 ALTER FUNCTION, 0 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0042_touches_count_after_a_resto
Revises: 0041_failed_checks_flag_the_prom
Create Date: 2026-12-07 04:03:53.972938

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0042_touches_count_after_a_resto'
down_revision = '0041_failed_checks_flag_the_prom'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
