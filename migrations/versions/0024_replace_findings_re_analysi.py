"""replace_findings re-analysis: tool and category, rule reanalysis, anchors move, baseline_state

Frozen files:

* functions/replace_findings.sql
* privileges.sql

Revision ID: 0024_replace_findings_re_analysi
Revises: 0023_finding_checks_file_state_r
Create Date: 2026-12-02 05:45:23.022144

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0024_replace_findings_re_analysi'
down_revision = '0023_finding_checks_file_state_r'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
