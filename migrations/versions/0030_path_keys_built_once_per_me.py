"""path keys built once per merge

``ledger._match_changes`` builds a merge's path keys (``ledger._path_keys``)
into a variable before its query, and ``tg_merge__supersede`` builds them
once per merge in the subquery over ``new_merges``; both probe
``ledger.finding_path`` with the value. The call sat inside the probing
condition, so wherever the planner read ``finding_path`` sequentially (a
small or new ledger) it ran once per row read: 2,000 calls a merge for a
scope of 2,000 findings, 8 of a merge's 34 ms. The same rows and decisions.

Frozen files:

* functions/_match_changes.sql
* functions/tg_merge__supersede.sql

Revision ID: 0030_path_keys_built_once_per_me
Revises: 0029_one_definition_of_the_token
Create Date: 2026-12-02 19:17:37.142868

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0030_path_keys_built_once_per_me'
down_revision = '0029_one_definition_of_the_token'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
