"""prompt read at scale: per-scope active totals and the prompt-order index

Frozen files:

* tables/scope_active_total.sql
* functions/tg_finding__active_totals.sql
* functions/read_prompt_findings.sql
* functions/reconcile.sql
* indexes/finding_prompt_order_idx.sql
* triggers/finding___310_active_totals_insert.sql
* triggers/finding___310_active_totals_update.sql
* policies.sql
* privileges.sql

Revision ID: 0022_prompt_read_at_scale_per_sc
Revises: 0021_writer_times_bounded_redeli
Create Date: 2026-12-02 05:41:10.873583

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0022_prompt_read_at_scale_per_sc'
down_revision = '0021_writer_times_bounded_redeli'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
