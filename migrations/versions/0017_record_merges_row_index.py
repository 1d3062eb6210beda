"""record_merges names the element a row's error comes from (issue 14, carried over)

ledger.record_merges records a batch in one multi-row INSERT, so an error a
merge row raises (LD001-LD004 naming the field and value, LD007 for a
conflicting redelivery) did not say which element of the batch it came
from. The INSERT is now ledger._insert_merges (the same statement), run in
a subtransaction; when it raises one of those, record_merges records the
elements again one by one, in order, until one fails, and raises that
error with its message led by 'merges[<i>]: ' (its SQLSTATE and hint
kept). Nothing of the batch is written either way. LD401 (the scope's,
not an element's) and any other error pass through unchanged.
tests/test_record_merges.py. CREATE OR REPLACE FUNCTION and one new
function, no table lock.

Frozen files:

* functions/_insert_merges.sql
* functions/record_merges.sql
* privileges.sql

Revision ID: 0017_record_merges_row_index
Revises: 0016_cheaper_row_triggers
Create Date: 2026-12-01 19:07:17.307630

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0017_record_merges_row_index'
down_revision = '0016_cheaper_row_triggers'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
