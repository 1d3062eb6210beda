"""perf import and claim

Frozen files:

* functions/_ensure_scope.sql
* functions/_snapshot_changes.sql
* functions/_write_issue_snapshot.sql
* functions/claim_task.sql
* functions/tg_finding__lifecycle.sql
* functions/_revert_targets.sql

What it does (issue 12, phase 1):

* tg_finding__lifecycle: SET plan_cache_mode = force_custom_plan. Its
  duplicate-key lookup used to keep the generic plan made at the sixth row
  of a session's first INSERT; on a fresh table that plan walked
  finding_scope_slug_key by scope alone, so one INSERT ... SELECT of N
  findings cost O(N^2).
* _ensure_scope: SET enable_seqscan = off (scope_pkey is the only index;
  a generic plan made on a small analysed table scanned it per row).
* claim_task: task and issue read in the locking statement, the snapshot
  written in the dispatching UPDATE (one UPDATE per claim instead of two);
  _write_issue_snapshot keeps its CAS, header updated.
* _snapshot_changes: one expression, no {64} regex (same results).
* _revert_targets: a target is a merge recorded before the revert (lower
  id), so a multi-row INSERT or COPY reverts what one-by-one inserts do.

Only functions change: no table is rewritten or locked beyond CREATE OR
REPLACE FUNCTION.

Revision ID: 0002_perf_import_and_claim
Revises: 0001_baseline
Create Date: 2026-12-01 10:10:22.011740

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_perf_import_and_claim'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
