"""check dialects and checks lint

Frozen files:

* functions/_pattern_traps.sql
* functions/_check_pattern.sql
* functions/_check_resolved_when.sql
* functions/validate_check.sql
* functions/_check_leaves.sql
* functions/_lint_stubs.sql
* functions/lint_check.sql
* functions/tg_finding__prepare_check.sql
* privileges.sql

Revision ID: 0036_check_dialects_and_checks_l
Revises: 0035_apply_merge_holds_the_decis
Create Date: 2026-12-07 03:07:14.968293

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0036_check_dialects_and_checks_l'
down_revision = '0035_apply_merge_holds_the_decis'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
