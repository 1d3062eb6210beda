"""no verb on a non-resolving trailer line resolves

Frozen files:

* functions/_message_tokens.sql

Revision ID: 0025_no_verb_on_a_non_resolving
Revises: 0024_replace_findings_re_analysi
Create Date: 2026-12-02 06:07:29.775067

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0025_no_verb_on_a_non_resolving'
down_revision = '0024_replace_findings_re_analysi'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
