"""Performance, phase 2 (issue 12): the merge trigger linear in paths, a message pre-filter, plans kept.

* New table ledger.finding_path (scope, path, finding_id), primary key
  btree: the paths of the active findings, kept by two new triggers on
  ledger.finding (_300_paths_insert, statement-level with a transition
  table; _300_paths_update, row-level when a finding's active paths change:
  supersede, dismiss, reopen, restore, a paths or scope update) through the
  SECURITY DEFINER functions tg_finding__paths_insert/_update. Backfilled
  from the active findings in this revision's transaction, after the
  triggers exist (their SHARE ROW EXCLUSIVE lock on finding keeps the
  backfill exact). The path rule (_match_changes, _match_paths) probes it
  once per distinct touched path and ancestor directory; the GIN index
  finding_active_paths_idx is dropped (concurrently.sql, after the
  transaction; downgrade_concurrently.sql builds it again). ledger.reconcile
  makes a scope's rows exact first (findings written while triggers did not
  fire).
* ledger._message_may_match, the message pre-filter: _merge_decisions runs
  the tokeniser and _match_message only when some active finding could
  match the message.
* _match_message and _match_changes are PL/pgSQL (planned once per session,
  not on every call); their jit/parallel SET clauses, and _merge_decisions',
  move to _apply_merge.

Decisions are unchanged (tests/test_decisions.py, test_bulk_equivalence.py,
test_corpus_decisions.py and the pgTAP suite decide).

Frozen files:

* tables/finding_path.sql
* functions/_scoped_paths.sql
* functions/_match_paths.sql
* functions/_match_changes.sql
* functions/tg_finding__paths_insert.sql
* functions/tg_finding__paths_update.sql
* functions/_match_message.sql
* functions/_message_may_match.sql
* functions/_merge_decisions.sql
* functions/_apply_merge.sql
* functions/reconcile.sql
* triggers/finding___300_paths_insert.sql
* triggers/finding___300_paths_update.sql
* privileges.sql

Revision ID: 0007_merge_trigger_phase_2
Revises: 0006_anchors_follow_renames
Create Date: 2026-12-01 13:20:27.434104

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0007_merge_trigger_phase_2'
down_revision = '0006_anchors_follow_renames'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
