"""one builder of the path keys: _match_changes probes with _path_keys

``ledger._match_changes`` probes ``ledger.finding_path`` with the keys of
``ledger._path_keys`` (the keys the statement trigger
``tg_merge__supersede`` probes with) instead of building them a second time
from ``string_to_array``; each hit is then paired with the touched paths it
stands for (equal, or a directory key that prefixes it). The same rows and
decisions.

Frozen files:

* functions/_match_changes.sql

Revision ID: 0028_one_builder_of_the_path_key
Revises: 0027_explicit_casts_in_read_prom
Create Date: 2026-12-02 09:56:02.972171

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0028_one_builder_of_the_path_key'
down_revision = '0027_explicit_casts_in_read_prom'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
