"""check dialects, checks lint and h-verify interim

Frozen files:

* functions/_pattern_traps.sql
* functions/_check_pattern.sql
* functions/_check_resolved_when.sql
* functions/validate_check.sql
* functions/_check_leaves.sql
* functions/_lint_stubs.sql
* functions/lint_check.sql
* functions/tg_finding__prepare_check.sql
* functions/read_audit.sql
* functions/_finding_touches.sql
* functions/read_prompt_findings.sql
* functions/read_prompt_text.sql
* functions/verify_finding.sql
* privileges.sql

Revision ID: 0037_check_dialects_checks_lint
Revises: 0036_rechecks_settle_and_file_st
Create Date: 2026-12-07 03:18:28.340170

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0037_check_dialects_checks_lint'
down_revision = '0036_rechecks_settle_and_file_st'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
