"""merge cost: anchor moves skip the finding trigger, leaner probe keys, deleted directories on the fast path

What a merge costs (issue 33), second step, with the same decisions:

* The finding trigger ``_100_prepare`` fires on INSERT only; the new
  ``_100_prepare_update`` runs the same ``tg_finding__prepare`` on UPDATE of
  the written columns, with a ``WHEN`` condition that skips an update of
  nothing but well-formed anchors on the finding's own file paths (what a
  merge's anchor move writes), so that move calls no PL/pgSQL function per
  finding (about 11 us each before). Which anchors are kept as written is
  one new inlined SQL function, ``_anchors_kept(anchors, paths)`` (granted
  to ledger_writer and ledger_admin, as the triggers' other helpers), which
  the condition and the function ask: the function's copies of that test
  (one at its top, one per key by a query) are gone. Dropping
  ``_100_prepare`` takes ACCESS EXCLUSIVE on ``finding`` until the
  migration commits, and a trigger state set on it by hand (DISABLE, ENABLE
  REPLICA or ALWAYS) is not kept. A row written without triggers whose
  paths hold a NULL or are not one-dimensional now runs the function on
  such an update (which refuses those paths) where the old fast path kept
  it.
* ``_token_keys``: one pass over the norms and one over the significant
  norms, appending in place, no query (a third of the time of the query it
  replaces); a key repeats when its words do (the probe and
  ``_match_message``'s DISTINCT read a set).
* ``tg_merge__prepare_changes``: the fast path takes a deleted directory
  that holds one of the merge's paths (git lists a removed directory that
  way); its tests of elements against lists are set operations (the generic
  plan, made for 10 elements, compared each element with each path), and
  each file's hunks are matched by one regular expression over their text.
* ``_apply_merge``: the anchors the lane moved and those the decisions
  moved within their files are written by one UPDATE (there were two
  near-copies, each with its own guard).
* ``_check_merge_changes``: a hunk key that is one of the paths is not
  normalised again.
* ``_path_keys``: one ``string_to_array`` per path, each directory its
  parent's key plus one part.
* ``_match_changes``: added and deleted looked up by hashed subplans, the
  added paths' file names taken once per call for the rename test, and the
  query that reads long hunk lists into arrays run only when a file has 8
  hunks or more (a jsonpath test; it ran for every document over 256
  bytes: 1,008 of agent-fox's 1,214 merges, where 344 have such a file).

Frozen files:

* functions/_anchors_kept.sql
* functions/tg_finding__prepare.sql
* triggers/finding___100_prepare.sql
* triggers/finding___100_prepare_update.sql
* functions/_path_keys.sql
* functions/_match_changes.sql
* functions/_token_keys.sql
* functions/_check_merge_changes.sql
* functions/tg_merge__prepare_changes.sql
* functions/_apply_merge.sql

0 ALTER FUNCTION, 1 COMMENT ON, 2 GRANT/REVOKE statement(s) in upgrade.sql.

Revision ID: 0006_merge_cost_anchor_moves_ski
Revises: 0005_merge_cost_the_anchor_lane
Create Date: 2026-12-07 22:23:58.618261

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0006_merge_cost_anchor_moves_ski'
down_revision = '0005_merge_cost_the_anchor_lane'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
