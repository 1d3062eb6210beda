"""Anchors follow renames (issue 15)

A rename is its old path deleted and its new path added. When a merge keys
the rename's hunks by the old path (their old line numbers refer to it),
those hunks leave an anchored finding's lines alone, and a file of the same
name is added, the finding follows it: its path becomes the new one and its
anchor moves by the hunks above it (anchor_moved, to_path in
detail.anchor_moves, detail.paths_after). Without hunks, or with hunks that
delete the whole file (git diff --no-renames), the finding stays a
candidate (maybe_renamed) on its old path. A deleted anchored file is
audited as deleted_file again, not as its deleting hunk. Functions
_match_changes (its result gains the rename's new path), _merge_decisions
and _apply_merge; the comment on merge.hunks. No table changes.

Frozen files:

* tables/merge.sql
* functions/_match_changes.sql
* functions/_merge_decisions.sql
* functions/_apply_merge.sql

Revision ID: 0006_anchors_follow_renames
Revises: 0005_plpgsql_typed_array_literal
Create Date: 2026-12-01 12:03:38.608735

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0006_anchors_follow_renames'
down_revision = '0005_plpgsql_typed_array_literal'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
