"""floor: no kept anchor rows, fast prepare, generic plans

Frozen files:

* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* functions/_merge_decisions.sql
* functions/_check_merge_changes.sql
* functions/tg_merge__prepare_changes.sql

2 ALTER FUNCTION, 1 COMMENT ON, 2 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0048_floor_no_kept_anchor_rows_f
Revises: 0047_definers_check_the_caller_r
Create Date: 2026-12-07 06:12:19.618072

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0048_floor_no_kept_anchor_rows_f'
down_revision = '0047_definers_check_the_caller_r'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
