"""writer times bounded, redelivery compares change kinds and serialises abbreviations, hunks bounded, anchors keys once

Frozen files:

* functions/_check_timestamp.sql
* functions/_check_time_bounds.sql
* functions/tg_finding__prepare.sql
* functions/tg_merge__prepare.sql
* functions/tg_issue__prepare.sql
* functions/tg_agent_task__prepare.sql
* functions/tg_merge__check_redelivery.sql
* functions/tg_merge__prepare_changes.sql
* privileges.sql

Revision ID: 0021_writer_times_bounded_redeli
Revises: 0020_task_transitions_one_helper
Create Date: 2026-12-02 05:40:11.450505

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0021_writer_times_bounded_redeli'
down_revision = '0020_task_transitions_one_helper'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
