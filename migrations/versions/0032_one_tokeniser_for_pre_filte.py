"""one tokeniser for pre-filter and matcher

Frozen files:

* functions/_tokenise.sql
* functions/_token_keys.sql
* functions/_message_tokens.sql
* functions/_match_message.sql
* functions/_message_probe_keys.sql

Revision ID: 0032_one_tokeniser_for_pre_filte
Revises: 0031_anchor_moves_kept_without_a
Create Date: 2026-12-06 03:14:39.682713

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0032_one_tokeniser_for_pre_filte'
down_revision = '0031_anchor_moves_kept_without_a'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
