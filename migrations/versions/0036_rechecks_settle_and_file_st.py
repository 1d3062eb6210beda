"""rechecks settle and file-state answers agree with the merge

Frozen files:

* tables/file_state_request.sql
* tables/recheck_request.sql
* functions/_commit_subject.sql
* functions/_overruled_by_person.sql
* functions/_settle_rechecks.sql
* functions/tg_finding__settle_rechecks.sql
* functions/_merge_decisions.sql
* functions/_settle_checks.sql
* functions/record_file_states.sql
* functions/claim_rechecks.sql
* functions/answer_recheck.sql
* functions/pending_file_states.sql
* triggers/finding___320_settle_rechecks.sql
* privileges.sql

Revision ID: 0036_rechecks_settle_and_file_st
Revises: 0035_apply_merge_holds_the_decis
Create Date: 2026-12-07 03:08:24.935488

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0036_rechecks_settle_and_file_st'
down_revision = '0035_apply_merge_holds_the_decis'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
