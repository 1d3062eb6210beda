"""task claim leases

Frozen files:

* tables/agent_task.sql
* functions/claim_task.sql
* functions/renew_task_lease.sql
* privileges.sql

Revision ID: 0037_task_claim_leases
Revises: 0036_policy_warns_on_unknown_kin
Create Date: 2026-12-07 03:10:57.024624

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0037_task_claim_leases'
down_revision = '0036_policy_warns_on_unknown_kin'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
