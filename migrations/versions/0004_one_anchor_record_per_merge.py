"""one anchor record per merge for anchors moved within their files

Frozen files:

* indexes/supersession_anchor_moves_idx.sql
* functions/_anchor_moves.sql
* functions/read_audit.sql
* functions/read_history.sql
* functions/_merge_audit.sql
* functions/record_merge.sql
* functions/record_merges.sql
* functions/_apply_merge.sql
* functions/reconcile.sql

0 ALTER FUNCTION, 1 COMMENT ON, 3 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0004_one_anchor_record_per_merge
Revises: 0003_trigger_definers_check_thei
Create Date: 2026-12-07 16:56:19.456056

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0004_one_anchor_record_per_merge'
down_revision = '0003_trigger_definers_check_thei'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
