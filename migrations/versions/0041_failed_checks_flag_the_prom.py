"""failed checks flag, the prompt text keeps its budget

Frozen files:

* functions/read_prompt_text.sql
* functions/_settle_checks.sql

0 ALTER FUNCTION, 0 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0041_failed_checks_flag_the_prom
Revises: 0040_sarif_suppressions_and_line
Create Date: 2026-12-07 03:58:46.678424

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0041_failed_checks_flag_the_prom'
down_revision = '0040_sarif_suppressions_and_line'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
