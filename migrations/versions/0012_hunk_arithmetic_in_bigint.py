"""Hunk arithmetic in bigint: ledger._match_changes (issue 14, found by a break-it run)

A merge's hunks and a finding's anchors hold line numbers up to
2147483647, which the validations accept, but _match_changes added and
summed them as integer: a hunk [2147483647, 2147483647, 1, 1] on a file with
an anchored finding failed the merge with 22003 (integer out of range), so
whether a merge was accepted depended on the findings of its scope; and an
anchor shifted past 2147483647 failed with LD003 on finding.anchors, a field
the writer never wrote. The comparisons and the shift are now bigint, and a
moved anchor stays within lines 1 to 2147483647. Nothing else changes
(tests/test_hunk_bounds.py). CREATE OR REPLACE FUNCTION only, no table lock.

Frozen files:

* functions/_match_changes.sql

Revision ID: 0012_hunk_arithmetic_in_bigint
Revises: 0011_statement_merge_trigger
Create Date: 2026-12-01 16:17:07.309364

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0012_hunk_arithmetic_in_bigint'
down_revision = '0011_statement_merge_trigger'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
