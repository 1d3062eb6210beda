"""The ``demo`` verb: replay the drift-review scenario (:mod:`findings_ledger.demo`)
into a fresh scope and print, per task group, the drift findings its prompt
would carry without and with the ledger, and why."""

from __future__ import annotations

import os

import click
import psycopg
from rich.console import Console
from rich.table import Table

from .. import api, demo
from ..testing import cluster, pg_binaries
from .helpers import console, dsn_option, resolve_dsn, user_errors


@click.command("demo")
@dsn_option
@click.option("--scope", default=None, help="scope to replay into (default: a fresh demo-07_...-<timestamp> scope)")
@user_errors
def demo_command(dsn: str | None, scope: str | None) -> None:
    """Replay the drift-review scenario and print, per task group, the drift
    findings its prompt would carry without and with the ledger."""
    target = resolve_dsn(dsn)
    throwaway = not (dsn or os.environ.get(cluster.DSN_ENV))
    if not throwaway:  # a database of the user's: say so before changing its schema
        with psycopg.connect(target, autocommit=True) as conn:
            current, head = api.current_revision(conn), api.head_revision()
            if current != head:
                console.print(f"migrating database {conn.info.dbname!r} from "
                              f"{'no ledger schema' if current is None else current} to {head}",
                              soft_wrap=True, markup=False, highlight=False)
    api.migrate(target)
    with psycopg.connect(target, autocommit=True) as conn:
        console.print(pg_binaries.server_line(conn, throwaway=throwaway), soft_wrap=True, markup=False, highlight=False)
        # one transaction: an interrupted demo (Ctrl-C) leaves no partial scope behind
        with conn.transaction():
            report = demo.run_scenario(conn, scope or demo.default_scope())
    print_report(report, console)


def _why(d: demo.MergeDecision) -> str:
    if d.finding_path == d.touched_path:
        return f"{d.touched_path} (the finding's file)"
    return f"{d.touched_path} (inside the finding's {d.finding_path})"


def print_report(report: demo.DemoReport, console: Console) -> None:
    """Print the per-group table, the reasons, and what is still active."""
    first = report.groups[0].prompt
    console.print(
        f"The drift-review scenario replayed in scope [bold]{report.scope}[/]: "
        f"the group-0 drift review ({demo.REVIEW_NODE}) reported {first.all_findings} drift findings, "
        f"{first.all_chars:,} characters."
    )
    review = Table(title="The group-0 drift review, as stored (paths normalised by the database)")
    review.add_column("finding")
    review.add_column("severity")
    review.add_column("title")
    review.add_column("paths")
    review.add_column("chars", justify="right")
    for f in report.findings:
        review.add_row(f.finding_key or "", f.severity, f.title, ", ".join(f.paths) or "(none)", str(f.chars))
    console.print(review)
    table = Table(title="Drift findings injected into each group's coder prompt (figures from the database)")
    table.add_column("group", justify="right")
    table.add_column("without ledger\nfindings", justify="right")
    table.add_column("\nchars", justify="right")
    table.add_column("with ledger\nfindings", justify="right")
    table.add_column("\nchars", justify="right")
    table.add_column("\nsaved", justify="right")
    table.add_column("then the group's merge\nsuperseded")
    for g in report.groups:
        p = g.prompt
        retired = [d.finding_key or "?" for d in g.decisions if d.action == "superseded"]
        table.add_row(
            str(g.group),
            str(p.all_findings),
            f"{p.all_chars:,}",
            str(p.active_findings),
            f"{p.active_chars:,}",
            f"{p.saved_chars:,}",
            f"{g.commit_sha[:7]}: " + (", ".join(retired) if retired else "nothing"),
        )
    last = report.after_last
    table.add_section()
    table.add_row(
        "after 7",
        str(last.all_findings),
        f"{last.all_chars:,}",
        str(last.active_findings),
        f"{last.active_chars:,}",
        f"{last.saved_chars:,}",
        "",
    )
    console.print(table)
    saved = sum(g.prompt.saved_chars for g in report.groups)
    console.print(
        f"Prompts of groups {report.groups[0].group}-{report.groups[-1].group}: "
        f"{sum(g.prompt.all_chars for g in report.groups):,} characters of drift findings without the ledger, "
        f"{sum(g.prompt.active_chars for g in report.groups):,} with it ({saved:,} stale characters not injected)."
    )

    why = Table(title="Why: every decision of every merge, from ledger.read_audit")
    why.add_column("group", justify="right")
    why.add_column("finding")
    why.add_column("action")
    why.add_column("touched path that matched (the audit's evidence)")
    why.add_column("superseded_by")
    for g in report.groups:
        for d in g.decisions:
            why.add_row(str(g.group), d.finding_key or "", d.action, _why(d), d.superseded_by or "")
    console.print(why)

    still = Table(title=f"Still active after group {report.groups[-1].group} (ledger.active_findings)")
    still.add_column("finding")
    still.add_column("severity")
    still.add_column("paths")
    for a in report.still_active:
        still.add_row(f"{a.finding_key} {a.title}", a.severity, ", ".join(a.paths) or "(none: no path can retire it)")
    console.print(still)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [demo_command]
