"""verdicts and the prompt text

Frozen files:

* functions/read_audit.sql
* functions/_finding_touches.sql
* functions/read_prompt_findings.sql
* functions/read_prompt_text.sql
* functions/verify_finding.sql

0 ALTER FUNCTION, 0 COMMENT ON, 8 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0037_verdicts_and_the_prompt_tex
Revises: 0036_rechecks_settle_and_file_st
Create Date: 2026-12-07 03:31:21.203853

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0037_verdicts_and_the_prompt_tex'
down_revision = '0036_rechecks_settle_and_file_st'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
