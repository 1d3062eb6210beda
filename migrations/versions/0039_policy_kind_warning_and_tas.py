"""policy kind warning and task claim leases

Frozen files:

* tables/agent_task.sql
* indexes/agent_task_lease_idx.sql
* functions/claim_task.sql
* functions/renew_task_lease.sql
* functions/set_match_policy.sql

0 ALTER FUNCTION, 1 COMMENT ON, 4 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0039_policy_kind_warning_and_tas
Revises: 0038_check_dialects_and_checks_l
Create Date: 2026-12-07 03:42:08.137982

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0039_policy_kind_warning_and_tas'
down_revision = '0038_check_dialects_and_checks_l'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
