"""apply_merge holds the decisions in one array

Frozen files:

* functions/_apply_merge.sql

ledger._apply_merge held a merge's decisions in six parallel arrays (ids,
actions, rules, evidence, reasons, details), each unnested again for the
audit INSERT, the UPDATEs and the recheck INSERT (and the supersede rule
looked up with array_position). It now holds them once, as one
ledger.supersession[] in finding-id order (NULLS FIRST), each decision built
as the audit row it becomes, and every later statement reads that array.
Same audit rows in the same order, locks, supersessions, anchor moves,
recheck and file-state requests; _merge_decisions is unchanged.

Revision ID: 0035_apply_merge_holds_the_decis
Revises: 0034_pg_temp_last_in_every_pinne
Create Date: 2026-12-06 05:17:11.494300

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0035_apply_merge_holds_the_decis'
down_revision = '0034_pg_temp_last_in_every_pinne'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
