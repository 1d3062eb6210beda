"""drift touch default flag

The shipped touch mode of kind drift becomes flag (every other kind keeps
retire): ledger._default_touch_mode() becomes _default_touch_mode(kind).
Measured on the agent-fox drift case (docs/decision-quality.md): retire
retired 7 live findings early (1,665 characters hidden from later prompts),
flag hides none and needs no verifier, recheck needs 302 verifier calls.
Scopes whose touch_modes list neither drift nor * change behaviour on
upgrade: set touch retire for kind drift to keep the path rule alone.

Frozen files:

* tables/scope.sql
* functions/_default_touch_mode.sql
* functions/_touch_mode.sql
* functions/tg_scope__prepare_policy.sql

Revision ID: 0021_drift_touch_default_flag
Revises: 0020_finding_checks_file_state_r
Create Date: 2026-12-02 05:32:18.553930

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0021_drift_touch_default_flag'
down_revision = '0020_finding_checks_file_state_r'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
