"""anchor moves kept without a normalize_path per key; decision pieces aggregated once

Frozen files:

* functions/tg_finding__prepare.sql
* functions/_merge_decisions.sql

Revision ID: 0031_anchor_moves_kept_without_a
Revises: 0030_path_keys_built_once_per_me
Create Date: 2026-12-06 02:37:01.524373

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0031_anchor_moves_kept_without_a'
down_revision = '0030_path_keys_built_once_per_me'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
