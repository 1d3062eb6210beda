"""The ``findings-ledger`` command line.

Every command connects to ``--dsn`` / ``$LEDGER_DSN``, or, when neither is
set, to database ``ledger`` on the throwaway cluster (started on demand, see
:mod:`findings_ledger.cluster`). A user mistake (bad input, unknown scope,
unreachable server) prints one ``error:`` line on stderr and exits 1; usage
errors exit 2.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import alembic.util
import click
import psycopg
import sqlalchemy.exc
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from . import api, cluster, demo, gitlog, pg_binaries
from .errors import LedgerError

F = TypeVar("F", bound=Callable[..., Any])
console = Console()


def resolve_dsn(dsn: str | None) -> str:
    """``dsn``, else ``$LEDGER_DSN``, else the throwaway cluster's ``ledger``
    database (created if missing)."""
    if dsn:
        return dsn
    server = cluster.server_dsn("postgres")
    if cluster.DSN_ENV in os.environ:
        return server
    ensure_database(server, "ledger")
    return cluster.default_cluster().dsn("ledger")


def ensure_database(server_dsn: str, name: str) -> None:
    """Create database ``name`` on the server unless it exists."""
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))


def one_line(text: object) -> str:
    """``text`` on one line: lines joined with ``; `` (server and git messages
    may span several)."""
    return "; ".join(line.strip() for line in str(text).strip().splitlines() if line.strip())


def user_errors(fn: F) -> F:
    """Turn ledger, connection and cluster errors into one ``error:`` line and exit 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LedgerError as exc:
            click.echo(f"error: {one_line(exc)} [{exc.sqlstate}]", err=True)
        except (psycopg.OperationalError, cluster.ClusterError) as exc:
            click.echo(f"error: cannot reach PostgreSQL: {str(exc).strip().splitlines()[0]}", err=True)
        except sqlalchemy.exc.OperationalError as exc:  # alembic connects through SQLAlchemy
            click.echo(f"error: cannot reach PostgreSQL: {str(exc.orig).strip().splitlines()[0]}", err=True)
        except sqlalchemy.exc.DBAPIError as exc:
            click.echo(f"error: migration failed: {one_line(exc.orig)}", err=True)
        except alembic.util.CommandError as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
        except (FileNotFoundError, NotADirectoryError, ValueError) as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
        sys.exit(1)

    return wrapper  # type: ignore[return-value]


dsn_option = click.option(
    "--dsn", envvar="LEDGER_DSN", default=None, help="libpq DSN or URI (default: $LEDGER_DSN, else a throwaway cluster)"
)


@click.group()
@click.version_option(package_name="findings-ledger")
def main() -> None:
    """Findings that retire themselves when merges land."""
    # piped output (CI logs, files) without $COLUMNS: 120 columns, so tables do not wrap
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = 120


@main.command()
@dsn_option
@click.option("--revision", default="head", show_default=True)
@user_errors
def migrate(dsn: str | None, revision: str) -> None:
    """Upgrade the database to REVISION (alembic)."""
    target = resolve_dsn(dsn)
    api.migrate(target, revision)
    click.echo(f"migrated to {revision}")


@main.command()
@dsn_option
@click.argument("scope")
@user_errors
def active(dsn: str | None, scope: str) -> None:
    """List the active findings of SCOPE in prompt order."""
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        rows = api.active_findings(conn, scope)
    table = Table(title=f"active findings of {scope} ({len(rows)})")
    for col in ("id", "key", "kind", "severity", "title", "paths"):
        table.add_column(col)
    for f in rows:
        table.add_row(str(f.id), f.finding_key or "", f.kind, f.severity, f.title, ", ".join(f.paths))
    console.print(table)


@main.command()
@dsn_option
@click.argument("scope")
@click.option("--finding", "finding_id", type=int, default=None, help="only this finding's rows")
@click.option("--merge", "merge_id", type=int, default=None, help="only this merge's rows")
@user_errors
def audit(dsn: str | None, scope: str, finding_id: int | None, merge_id: int | None) -> None:
    """Print the audit trail of SCOPE."""
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        rows = api.read_audit(conn, scope, finding_id=finding_id, merge_id=merge_id)
    table = Table(title=f"audit of {scope} ({len(rows)} rows)")
    for col in ("id", "when", "finding", "merge", "action", "rule", "evidence"):
        table.add_column(col)
    for a in rows:
        table.add_row(
            str(a.id),
            a.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            str(a.finding_id or ""),
            str(a.merge_id or ""),
            a.action,
            a.rule or "",
            a.evidence or "",
        )
    console.print(table)


@main.command("hygiene-mode")
@dsn_option
@click.argument("scope")
@click.argument("mode", type=click.Choice(["on", "dry", "off"]))
@user_errors
def hygiene_mode(dsn: str | None, scope: str, mode: str) -> None:
    """Set SCOPE's hygiene mode: on (supersede), dry (audit only), off."""
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        click.echo(f"{scope}: hygiene_mode = {api.set_hygiene_mode(conn, scope, mode)}")


@main.command("replay-git")
@dsn_option
@click.argument("repo", type=click.Path(file_okay=False, path_type=str))
@click.option("--scope", required=True, help="scope to record the merges into (created on first use)")
@click.option(
    "--range", "rev_range", default="HEAD", show_default=True, help="revision range, e.g. v1.0..main"
)
@click.option("--since", default=None, help="only commits after this date (git log --since: 2026-01-01, 2.weeks)")
@user_errors
def replay_git(dsn: str | None, repo: str, scope: str, rev_range: str, since: str | None) -> None:
    """Record REPO's first-parent history into SCOPE, oldest first.

    Each commit on the first-parent line becomes a merge (renames count both
    paths, deletions count); findings of the scope whose paths it touched are
    superseded. Commits already recorded have no second effect, so rerunning
    resumes. Each merge is its own transaction.
    """
    merges = list(gitlog.read_merges(repo, rev_range, since))
    recorded = already = superseded = 0
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        with progress:
            task = progress.add_task(f"recording {len(merges)} commits into {scope}", total=len(merges))

            def on_merge(merge: gitlog.GitMerge, result: Any) -> None:
                nonlocal recorded, already, superseded
                if result.recorded:
                    recorded += 1
                    superseded += len(result.superseded)
                else:
                    already += 1
                progress.advance(task)

            gitlog.replay(conn, scope, merges, on_merge=on_merge)
    click.echo(
        f"{scope}: {recorded} merges recorded, {already} already recorded, {superseded} findings superseded"
    )


@main.command("demo")
@dsn_option
@click.option("--scope", default=None, help="scope to replay into (default: a fresh demo-07_...-<timestamp> scope)")
@user_errors
def demo_command(dsn: str | None, scope: str | None) -> None:
    """Replay seed 000's scenario and print, per task group, the drift
    findings its prompt would carry without and with the ledger."""
    target = resolve_dsn(dsn)
    api.migrate(target)
    with psycopg.connect(target, autocommit=True) as conn:
        console.print(pg_binaries.server_line(conn, throwaway=not (dsn or os.environ.get(cluster.DSN_ENV))),
                      soft_wrap=True, markup=False, highlight=False)
        report = demo.run_scenario(conn, scope or demo.default_scope())
    demo.print_report(report, console)


from .cli_security import reconcile_command, scope_rls_command  # noqa: E402 (registers issue 7's verbs)

main.add_command(reconcile_command)
main.add_command(scope_rls_command)
# Commands of later capabilities live in their own modules, which import this
# module's helpers; so they are registered last.
from .cli_hygiene import hygiene, import_findings  # noqa: E402
from .cli_lifecycle import COMMANDS as _LIFECYCLE_COMMANDS  # noqa: E402  (history, dismiss, restore, prompt)

main.add_command(import_findings)
main.add_command(hygiene)
for _command in _LIFECYCLE_COMMANDS:
    main.add_command(_command)
