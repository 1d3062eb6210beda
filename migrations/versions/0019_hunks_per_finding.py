"""Each anchored finding's hunks in a subquery of its own (issue 12)

ledger._match_changes compared the anchors of the matched findings with
the merge's hunks in two CTEs, hunked and lines (every anchored (finding,
path) pair with every hunk of its file, grouped by pair), then left-joined
the groups to the pairs. PostgreSQL 17 and 18 planned that join, whose row
estimates are those of a CTE, as a nested loop that grouped every pair's
hunks again for each pair: a merge with 100 hunks over a file that 100
findings are anchored to took 0.4 s on 18 and 0.7 s on 17, against 25 ms on 15 (the
benchmark's 1,000-hunk case did not finish). The comparison is now a
LATERAL subquery per pair (HAVING count(*) > 0, so that a pair without
hunks has no row, as before), and the deleted paths above an absent
finding a subquery per pair instead of the gone CTE: the same decisions,
the work proportional to the pairs times their file's hunks whatever the
plan (17 ms on 18, 23 ms on 15, for the case above). CREATE OR REPLACE
FUNCTION, no table lock.

Frozen files:

* functions/_match_changes.sql

Revision ID: 0019_hunks_per_finding
Revises: 0018_prefilter_splits_tokens
Create Date: 2026-12-01 20:32:16.733325

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0019_hunks_per_finding'
down_revision = '0018_prefilter_splits_tokens'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
