"""What plpgsql_check found (issue 13), fixed without a change of behaviour:
typed array and jsonb literals in the PL/pgSQL functions, unused variables
in _apply_revert and claim_task. CREATE OR REPLACE FUNCTION only: no table
lock.

Frozen files:

* functions/normalize_paths.sql
* functions/claim_task.sql
* functions/replace_findings.sql
* functions/_message_segments.sql
* functions/_message_tokens.sql
* functions/tg_finding__prepare_evidence.sql
* functions/tg_merge__check_redelivery.sql
* functions/_apply_merge.sql
* functions/_apply_revert.sql

Revision ID: 0005_plpgsql_typed_array_literal
Revises: 0004_perf_import_and_claim
Create Date: 2026-12-01 11:11:19.563272

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0005_plpgsql_typed_array_literal'
down_revision = '0004_perf_import_and_claim'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
