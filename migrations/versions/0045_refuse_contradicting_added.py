"""refuse contradicting added and deleted

Frozen files:

* functions/tg_merge__prepare_changes.sql

0 ALTER FUNCTION, 0 COMMENT ON, 0 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0045_refuse_contradicting_added
Revises: 0044_scope_on_agent_task_and_inj
Create Date: 2026-12-07 04:32:54.073063

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0045_refuse_contradicting_added'
down_revision = '0044_scope_on_agent_task_and_inj'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
