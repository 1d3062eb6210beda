"""Cheaper row triggers: tg_finding__prepare, tg_merge__prepare, tg_finding__lifecycle, tg_scoped__check_access (issue 12)

What an import of findings paid per row beyond the bare table, about
0.15 ms, and much of what a merge row paid before its statement trigger,
was calls that could change nothing:
- tg_finding__lifecycle's duplicate-key lookup was planned on every row
  (SET plan_cache_mode = force_custom_plan, 0.04 ms) so that it could not
  keep a plan walking finding_scope_slug_key. It now keeps one generic
  plan that is the unique index in every state of the table: SET
  enable_seqscan = off, and the redundant index condition
  (f.scope, f.finding_key) >= (NEW.scope, NEW.finding_key), which only
  finding_scope_finding_key_key takes in full (tests/test_import_plan.py).
- tg_finding__prepare and tg_merge__prepare call _check_text, _check_scope
  and _check_timestamp only for a value they could change or refuse, and
  _ensure_scope only when the scope row is missing; tg_finding__prepare
  tests for line suffixes in one expression; tg_finding__prepare_evidence
  skips _check_text for a NULL slug.
- tg_scoped__check_access (trigger _050_scope_access of finding, merge,
  issue and scope) returns after one catalog read while row-level
  security is off, instead of two nested function calls.
Every value stored and every error are unchanged
(tests/test_trigger_fast_paths.py). CREATE OR REPLACE FUNCTION only, no
table lock.

Frozen files:

* functions/tg_finding__prepare.sql
* functions/tg_merge__prepare.sql
* functions/tg_finding__lifecycle.sql
* functions/tg_finding__prepare_evidence.sql
* functions/tg_scoped__check_access.sql

Revision ID: 0016_cheaper_row_triggers
Revises: 0015_reconcile_lowercases_shas
Create Date: 2026-12-01 18:09:44.778803

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0016_cheaper_row_triggers'
down_revision = '0015_reconcile_lowercases_shas'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
