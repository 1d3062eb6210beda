"""drift touch default flag

The shipped touch mode of kind drift becomes flag (every other kind keeps
retire): ledger._default_touch_mode() becomes _default_touch_mode(kind).
Measured on the agent-fox drift case (docs/decision-quality.md): retire
retired 7 live findings early (1,665 characters hidden from later prompts),
flag hides none and needs no verifier, recheck needs 302 verifier calls.
Scopes whose touch_modes list neither drift nor * change behaviour on
upgrade: set touch retire for kind drift to keep the path rule alone.

Frozen files:

* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* comments/tables/scope.sql (its COMMENT ON statements only)

Revision ID: 0026_drift_touch_default_flag
Revises: 0025_no_verb_on_a_non_resolving
Create Date: 2026-12-02 06:08:31.158792

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0026_drift_touch_default_flag'
down_revision = '0025_no_verb_on_a_non_resolving'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
