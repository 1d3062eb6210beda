"""prefilter on distinct words

Frozen files:

* functions/_path_keys.sql
* functions/_message_may_match.sql

Revision ID: 0014_prefilter_on_distinct_words
Revises: 0013_claim_reads_the_task_once
Create Date: 2026-12-01 17:32:26.130385

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0014_prefilter_on_distinct_words'
down_revision = '0013_claim_reads_the_task_once'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
