"""finding checks, file-state requests, touch modes, recheck queue

Frozen files:

* tables/scope.sql
* tables/finding.sql
* tables/file_state_request.sql
* tables/recheck_request.sql
* views/pending_file_state.sql
* functions/_check_resolved_when.sql
* functions/_check_paths.sql
* functions/_eval_check.sql
* functions/_merge_file_states.sql
* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* functions/tg_finding__prepare_check.sql
* functions/tg_merge__supersede.sql
* functions/add_finding.sql
* functions/record_merge.sql
* functions/report_finding.sql
* functions/read_prompt_findings.sql
* functions/read_history.sql
* functions/_merge_decisions.sql
* functions/tg_scope__prepare_policy.sql
* functions/import_finding.sql
* functions/set_match_policy.sql
* functions/_settle_checks.sql
* functions/_apply_merge.sql
* functions/record_file_states.sql
* functions/claim_rechecks.sql
* functions/answer_recheck.sql
* triggers/finding___120_check.sql
* policies.sql
* privileges.sql

Revision ID: 0020_finding_checks_file_state_r
Revises: 0019_hunks_per_finding
Create Date: 2026-12-02 04:49:56.491379

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0020_finding_checks_file_state_r'
down_revision = '0019_hunks_per_finding'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
