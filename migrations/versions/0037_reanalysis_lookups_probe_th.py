"""reanalysis lookups probe the unique index

Frozen files:

* functions/report_finding.sql
* functions/replace_findings.sql

Revision ID: 0037_reanalysis_lookups_probe_th
Revises: 0036_replace_findings_reads_supp
Create Date: 2026-12-07 03:30:14.239820

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0037_reanalysis_lookups_probe_th'
down_revision = '0036_replace_findings_reads_supp'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
