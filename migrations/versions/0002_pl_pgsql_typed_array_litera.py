"""PL/pgSQL typed array literals and no unused variable (plpgsql_check)

What make lint's static check (tools/plpgsql_check.py, plpgsql_check with
every warning class on) found in the baseline's PL/pgSQL, fixed without a
change of behaviour: array variables and constants initialised from an
untyped literal ('{}', '{close,closes,...}') now say their type
('{}'::bigint[], '...'::text[]), so PL/pgSQL no longer casts a text value
through I/O when it assigns them (_apply_merge, _message_tokens,
_snapshot_changes, normalize_paths, replace_findings,
tg_finding__prepare_evidence); _apply_revert loses a declared v_i that its
integer FOR loop shadowed (the loop declares its own). Only CREATE OR
REPLACE FUNCTION: no table lock, no rewrite, no scan.

Frozen files:

* functions/normalize_paths.sql
* functions/_snapshot_changes.sql
* functions/replace_findings.sql
* functions/_message_tokens.sql
* functions/tg_finding__prepare_evidence.sql
* functions/_apply_merge.sql
* functions/_apply_revert.sql

Revision ID: 0002_pl_pgsql_typed_array_litera
Revises: 0001_baseline
Create Date: 2026-12-01 09:57:21.052691

The SQL is in the directory of the same name beside this module: upgrade.sql
and downgrade.sql, plain psql scripts that include this revision's frozen
object files (and, in downgrade.sql, the earlier revisions' files they
restore). Written by tools/new_revision.py; never edited once released
(migrations/released.sha256).
"""

from findings_ledger.migration_ops import run_revision_file

revision = '0002_pl_pgsql_typed_array_litera'
down_revision = '0001_baseline'
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_revision_file(__file__, "upgrade.sql")


def downgrade() -> None:
    run_revision_file(__file__, "downgrade.sql")
