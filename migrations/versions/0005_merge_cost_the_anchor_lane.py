"""merge cost: the anchor lane of _apply_merge; _match_changes reads the hunks once and searches long sorted files

What a merge costs (issue 33), with the same decisions:

* ``_apply_merge``: the anchor lane. For a merge whose message the pre-filter
  rules out, on the default branch, reverting nothing, with the path rule
  enabled, the findings whose every piece is an anchor the hunks kept or
  moved within its file (no check, a touch that does not count, a move no
  older than the finding) are written from ``_match_changes``' rows
  directly: their moves go into the merge's anchor record, their anchors
  are updated, no ``_merge_decisions``. The other findings' rows go to
  ``_merge_decisions`` through its new parameter. Whether a touch counts
  for a finding's kind is the new ``_touch_counts(touch_modes,
  path_supersede_kinds, kind)``, which ``_merge_decisions`` asks too.
* ``_merge_decisions(..., p_changes jsonb DEFAULT NULL)``: ``_match_changes``'
  rows from the caller (dropped and created again: one more parameter, with
  a default).
* ``_match_changes``: the hunks decompressed once per call (each ``->`` and
  ``?`` decompressed the merge row's document again); the touched keys
  joined to ``finding_path`` (``= ANY`` compared every path of the scope
  with every key) and to the touched paths (a directory key alone is
  compared with every touched path); the deleted directory and the renamed file read once per
  pair (a LATERAL each, not a subplan per read); a file of 8 hunks or more in
  order read once into arrays and searched by ``width_bucket``; an empty hunk
  list leaves a kept anchor where it was (it said ``[1, 1]``).
* ``tg_merge__supersede``: the skip test joins the keys to ``finding_path``.
* ``_check_merge_changes``: added, deleted and paths compared by set
  operations (a 708-file rename took 224 ms, now 47 ms), pair by pair only
  to name the first offending pair; the same rows and the same errors.

Frozen files:

* functions/_match_changes.sql
* functions/_touch_counts.sql
* functions/_merge_decisions.sql
* functions/tg_merge__supersede.sql
* functions/_check_merge_changes.sql
* functions/_apply_merge.sql

0 ALTER FUNCTION, 0 COMMENT ON, 2 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0005_merge_cost_the_anchor_lane
Revises: 0004_one_anchor_record_per_merge
Create Date: 2026-12-07 19:37:26.415822

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0005_merge_cost_the_anchor_lane'
down_revision = '0004_one_anchor_record_per_merge'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
