"""reconcile checks and lower-cases commit_sha: ledger.reconcile (issue 14, found by a break-it run)

A merge written without triggers (session_replication_role = replica, as
logical replication and pg_restore --disable-triggers write it) kept an
upper-case commit_sha through ledger.reconcile, which normalised its paths
and branch but not its sha: a later redelivery in lower case (what the
trigger writes) was then recorded as a second merge of the same commit.
reconcile now checks and lower-cases the sha of each merge it applies with
the rule of the _100_prepare trigger, now one function,
ledger._check_commit_sha (LD002 blank, LD004 over 64 characters, LD003 not
a hexadecimal commit id; 0016 and 0017 call it too), and refuses with LD007, naming both
merges, a commit another merge of the scope already records in full or
abbreviated either way round (the new ledger._other_merge_of_commit, two
probes of merge_scope_commit_sha_bytes_idx); nothing is applied then
(tests/test_reconcile.py). CREATE OR REPLACE FUNCTION and two new
functions, no table lock.

Frozen files:

* functions/_check_commit_sha.sql
* functions/_other_merge_of_commit.sql
* functions/reconcile.sql
* privileges.sql

Revision ID: 0015_reconcile_lowercases_shas
Revises: 0014_prefilter_on_distinct_words
Create Date: 2026-12-01 17:58:58.355712

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0015_reconcile_lowercases_shas'
down_revision = '0014_prefilter_on_distinct_words'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
