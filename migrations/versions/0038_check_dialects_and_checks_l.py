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

0 ALTER FUNCTION, 0 COMMENT ON, 10 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0038_check_dialects_and_checks_l
Revises: 0037_verdicts_and_the_prompt_tex
Create Date: 2026-12-07 03:31:45.115101

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0038_check_dialects_and_checks_l'
down_revision = '0037_verdicts_and_the_prompt_tex'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
