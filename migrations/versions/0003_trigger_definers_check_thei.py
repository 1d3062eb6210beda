"""trigger definers check their table

Frozen files:

* functions/tg_finding__paths_insert.sql
* functions/tg_finding__paths_update.sql
* functions/tg_finding__active_totals.sql
* functions/tg_finding__settle_rechecks.sql
* functions/tg_merge__supersede.sql

0 ALTER FUNCTION, 0 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0003_trigger_definers_check_thei
Revises: 0002_release_0_2_0
Create Date: 2026-12-07 07:01:36.217837

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0003_trigger_definers_check_thei'
down_revision = '0002_release_0_2_0'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
