"""The claim reads the task once: ledger.claim_task, ledger._resumed_row (issue 12)

A claim read the row it had just locked a second time (ledger._resumed_task
selected the task again by id, and claim_task then selected the resumed row
by the id it returned), and its dispatching UPDATE re-validated every text
column of the task although the claim changes none of them but session_id.
Now the locking statement also reads the task's anchor fields, the new
ledger._resumed_row takes them and returns the resumed row whole in one
query (ledger._resumed_task, kept with its LD005, calls it), and
tg_agent_task__prepare keeps a text value that ledger._check_text would
return unchanged (nothing to trim, no control character, short enough)
without calling it (the new ledger._text_kept says so, a SQL function
inlined into the trigger's expressions; ledger._scope_kept, the same for
a scope, is the scope fast path of 0016), takes a status that is one of the six as written
without trimming or folding, and leaves out the transition check for the
claim's own queued -> dispatched. What a claim returns and every error are
unchanged (tests/test_claims.py, tests/test_trigger_fast_paths.py). CREATE
OR REPLACE FUNCTION and three new functions, no table lock.

Frozen files:

* functions/_text_kept.sql
* functions/_scope_kept.sql
* functions/tg_agent_task__prepare.sql
* functions/_resumed_row.sql
* functions/_resumed_task.sql
* functions/claim_task.sql
* privileges.sql

Revision ID: 0013_claim_reads_the_task_once
Revises: 0012_hunk_arithmetic_in_bigint
Create Date: 2026-12-01 17:32:15.237308

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0013_claim_reads_the_task_once'
down_revision = '0012_hunk_arithmetic_in_bigint'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
