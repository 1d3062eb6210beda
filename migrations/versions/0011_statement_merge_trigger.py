"""Statement merge trigger: merges decided once per statement (issue 12)

Trigger _200_supersede was FOR EACH ROW, and _300_revert after it: every
merge of a multi-row INSERT or COPY ran the whole decision (the path
probe, the message pre-filter, _merge_decisions and the revert check), so
batching saved only round trips. _200_supersede is now FOR EACH STATEMENT
with the transition table new_merges: one query keeps the merges that can
decide something (a path an active finding references, a message that may
match, a revert, a merge off the default branch; new function
ledger._path_keys gives the probe keys), and those go through
ledger._apply_merge and ledger._apply_revert one after the other in id
order, exactly as the two row triggers ran them; after a revert or a merge
with hunks (which can reopen findings or move their paths) the query is run
again for the merges after it. _300_revert and ledger.tg_merge__revert
are gone. Decisions are the same (tests/test_bulk_equivalence.py compares
one by one, multi-row INSERT, COPY, and ledger.reconcile, which skips no
merge).

Locks: DROP TRIGGER takes ACCESS EXCLUSIVE on ledger.merge until the
revision's transaction commits, a few milliseconds of function and trigger
definitions: readers and writers of merges wait that long (run it with a
lock_timeout, as docs/dba.md says).

Frozen files:

* tables/merge.sql
* functions/_path_keys.sql
* functions/tg_merge__supersede.sql
* functions/_apply_merge.sql
* functions/_apply_revert.sql
* functions/reconcile.sql
* triggers/merge___200_supersede.sql

Revision ID: 0011_statement_merge_trigger
Revises: 0010_sha_lookup_in_byte_order
Create Date: 2026-12-01 15:22:06.221575

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0011_statement_merge_trigger'
down_revision = '0010_sha_lookup_in_byte_order'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
