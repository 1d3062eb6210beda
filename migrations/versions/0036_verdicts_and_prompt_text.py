"""verdicts and prompt text

Frozen files:

* functions/_commit_subject.sql
* functions/read_audit.sql
* functions/_finding_touches.sql
* functions/read_prompt_findings.sql
* functions/read_prompt_text.sql
* functions/verify_finding.sql
* privileges.sql

Revision ID: 0036_verdicts_and_prompt_text
Revises: 0035_apply_merge_holds_the_decis
Create Date: 2026-12-07 03:08:00.441240

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0036_verdicts_and_prompt_text'
down_revision = '0035_apply_merge_holds_the_decis'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
