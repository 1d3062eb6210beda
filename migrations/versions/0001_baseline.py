"""Baseline of release 0.1.0: the whole ledger schema.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01

Creates, in schema ``ledger``, everything release 0.1.0 has: the four group
roles (when they do not exist), the tables scope, merge, finding,
supersession (the audit), injection, issue, agent_task,
poisoned_failure_reason (with its three shipped reasons) and
retired_session with their constraints, indexes and comments; every
function, view and trigger; the scope_isolation policies (row-level
security stays disabled until ``ledger.enable_scope_rls()``); and the
privileges of each role. upgrade.sql includes the frozen copy of every
``sql/`` file of the release, in ``sql/install.sql``'s order.

It replaces the development revisions 0001_foundation ... 0006_performance,
which no database outside this repository's tests ran (CHANGELOG.md). It
builds exactly their head schema, with one deliberate difference: the
checks ``finding_resolution_check`` and ``finding_dismissal_check`` are
valid constraints (0003 added them NOT VALID to an existing table).

downgrade.sql refuses (SQLSTATE LD501, naming the row counts) while the
ledger holds data, unless told ``-x allow_data_loss=true`` (alembic) or the
setting ``ledger.allow_data_loss = true`` (psql: ``PGOPTIONS='-c
ledger.allow_data_loss=true'``). It then drops every object of the schema
except alembic's version table, revokes the roles' privileges and drops each
role that nothing else uses (a role still granted to a login role or used in
another database is kept, with a NOTICE).

Locks: only new objects; an empty database.
"""

from findings_ledger.migration_ops import run_revision_file

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
