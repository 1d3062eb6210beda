"""harden hostile input

Frozen files:

* tables/merge.sql
* functions/_unicode_class.sql
* functions/_check_scope.sql
* functions/_check_timestamp.sql
* functions/_unquote_path.sql
* functions/normalize_path.sql
* functions/normalize_paths.sql
* functions/_recorded_merge.sql
* functions/tg_scope__prepare.sql
* functions/tg_finding__prepare.sql
* functions/tg_merge__prepare.sql
* functions/record_merge.sql
* functions/tg_issue__prepare.sql
* functions/tg_agent_task__prepare.sql
* functions/tg_finding__lifecycle.sql
* functions/_check_json_shape.sql
* functions/replace_findings.sql
* functions/dismiss_finding.sql
* functions/tg_supersession__notify.sql
* functions/read_finding_events.sql
* functions/tg_injection__prepare.sql
* functions/read_prompt_findings.sql
* functions/_evidence_token.sql
* functions/_file_slug.sql
* functions/_title_sig.sql
* functions/_evidence_keys.sql
* functions/_message_tokens.sql
* functions/_match_message.sql
* functions/_merge_decisions.sql
* functions/tg_finding__prepare_evidence.sql
* functions/tg_scope__prepare_policy.sql
* functions/tg_merge__check_redelivery.sql
* functions/tg_merge__immutable.sql
* functions/workspace_scope.sql
* functions/_revert_targets.sql
* triggers/merge___010_immutable.sql
* triggers/merge___120_redelivery.sql
* privileges.sql

Revision ID: 0002_harden_hostile_input
Revises: 0001_baseline
Create Date: 2026-12-01 10:09:37.559724

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_harden_hostile_input'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
