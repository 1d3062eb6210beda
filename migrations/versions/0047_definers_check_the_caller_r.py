"""definers check the caller role

Frozen files:

* functions/_require_role.sql
* functions/lint_check.sql
* functions/record_merge.sql
* functions/record_merges.sql
* functions/claim_task.sql
* functions/renew_task_lease.sql
* functions/start_task.sql
* functions/complete_task.sql
* functions/fail_task.sql
* functions/cancel_task.sql
* functions/requeue_task.sql
* functions/_report_finding.sql
* functions/report_finding.sql
* functions/replace_findings.sql
* functions/dismiss_finding.sql
* functions/restore_finding.sql
* functions/import_finding.sql
* functions/record_file_states.sql
* functions/claim_rechecks.sql
* functions/answer_recheck.sql
* functions/verify_finding.sql
* functions/reconcile.sql

0 ALTER FUNCTION, 0 COMMENT ON, 2 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0047_definers_check_the_caller_r
Revises: 0046_create_publication_for_logi
Create Date: 2026-12-07 06:10:01.383599

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0047_definers_check_the_caller_r'
down_revision = '0046_create_publication_for_logi'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
