"""scope on agent_task and injection

Frozen files:

* tables/agent_task.sql
* indexes/agent_task_scope_idx.sql
* tables/injection.sql
* indexes/injection_scope_idx.sql
* functions/tg_agent_task__prepare.sql
* functions/tg_injection__prepare.sql

0 ALTER FUNCTION, 2 COMMENT ON, 2 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0044_scope_on_agent_task_and_inj
Revises: 0043_bounded_check_patterns
Create Date: 2026-12-07 04:21:37.621771

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0044_scope_on_agent_task_and_inj'
down_revision = '0043_bounded_check_patterns'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
