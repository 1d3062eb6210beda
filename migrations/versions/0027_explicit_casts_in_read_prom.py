"""explicit casts in read_prompt_findings and the hunk bound (plpgsql_check)

Frozen files:

* functions/read_prompt_findings.sql
* functions/tg_merge__prepare_changes.sql

Revision ID: 0027_explicit_casts_in_read_prom
Revises: 0026_drift_touch_default_flag
Create Date: 2026-12-02 06:13:47.695381

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0027_explicit_casts_in_read_prom'
down_revision = '0026_drift_touch_default_flag'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
