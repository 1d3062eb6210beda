"""The security and reliability verbs:

``findings-ledger reconcile SCOPE``
    apply the merges of SCOPE written while triggers did not fire
    (``ledger.reconcile``); prints one line per merge applied.
``findings-ledger scope-rls on|off``
    turn per-scope row-level security on or off (owner only).
"""

from __future__ import annotations

import click

from .. import access as security
from .. import merges
from .helpers import connect, dsn_option, user_errors


@click.command("reconcile")
@dsn_option
@click.argument("scope")
@user_errors
def reconcile_command(dsn: str | None, scope: str) -> None:
    """Apply SCOPE's merges that never went through the triggers
    (session_replication_role = replica), in id order, once."""
    with connect(dsn) as conn:
        results = merges.reconcile(conn, scope)
    for r in results:
        click.echo(f"merge {r.merge_id}: {len(r.superseded)} superseded, {len(r.decisions)} audit rows")
    click.echo(f"{scope}: {len(results)} merges reconciled")


@click.command("scope-rls")
@dsn_option
@click.argument("state", type=click.Choice(["on", "off"]))
@user_errors
def scope_rls_command(dsn: str | None, state: str) -> None:
    """Turn per-scope row-level security on or off (run as the owner)."""
    with connect(dsn) as conn:
        tables = security.enable_scope_rls(conn) if state == "on" else security.disable_scope_rls(conn)
    click.echo(f"per-scope row-level security {state}: {', '.join(tables)}")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [reconcile_command, scope_rls_command]
