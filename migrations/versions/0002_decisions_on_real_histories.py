"""decisions on real histories

Frozen files:

* tables/scope.sql
* tables/merge.sql
* tables/finding.sql
* functions/_match_changes.sql
* functions/tg_finding__prepare.sql
* functions/add_finding.sql
* functions/record_merge.sql
* functions/read_audit.sql
* functions/set_hygiene_mode.sql
* functions/report_finding.sql
* functions/read_prompt_findings.sql
* functions/_object_ends.sql
* functions/_message_segments.sql
* functions/_message_tokens.sql
* functions/_match_message.sql
* functions/_merge_decisions.sql
* functions/tg_scope__prepare_policy.sql
* functions/tg_merge__prepare_changes.sql
* functions/import_finding.sql
* functions/set_match_policy.sql
* functions/_apply_merge.sql
* functions/reconcile.sql
* triggers/finding___100_prepare.sql
* triggers/merge___120_changes.sql
* privileges.sql

Revision ID: 0002_decisions_on_real_histories
Revises: 0001_baseline
Create Date: 2026-12-01 10:25:50.527749

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_decisions_on_real_histories'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
