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
from .helpers import DSN_ENV, console, dsn_option, resolve_dsn, user_errors


@click.command("demo")
@dsn_option
@click.option("--scope", default=None, help="scope to replay into (default: a fresh demo-07_...-<timestamp> scope)")
@user_errors
def demo_command(dsn: str | None, scope: str | None) -> None:
    """Replay the drift-review scenario under the shipped policy and print,
    per task group, the drift findings its prompt carries without and with
    the ledger, the entries shown as possibly resolved and the verdicts of
    the group's (scripted) agent."""
    from ..testing import pg_binaries  # the server line of the test kit, loaded by this verb only

    target = resolve_dsn(dsn)
    throwaway = not (dsn or os.environ.get(DSN_ENV))
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
    if d.rule == "check":
        return f"its check held on the merge's tree: {d.evidence}"
    if d.finding_path == d.touched_path:
        return f"{d.touched_path} (the finding's file)"
    return f"{d.touched_path} (inside the finding's {d.finding_path})"


def _keys(keys: list[str]) -> str:
    return ", ".join(keys) if keys else "-"


def _verdicts(read: demo.PromptRead) -> str:
    out = []
    for verdict in ("resolved", "still_true"):
        keys = sorted(v.finding_key for v in read.verdicts if v.verdict == verdict)
        if keys:
            out.append(f"{_keys(keys)} {verdict}")
    return "; ".join(out) or "-"


def _merge(g: demo.GroupReport) -> str:
    retired = [d.finding_key or "?" for d in g.decisions if d.action == "superseded"]
    flagged = [d.finding_key or "?" for d in g.decisions if d.action == "flagged"]
    parts = ([f"retired {_keys(retired)}"] if retired else []) + ([f"flagged {_keys(flagged)}"] if flagged else [])
    return f"{g.commit_sha[:7]}: " + ("; ".join(parts) or "nothing")


def print_report(report: demo.DemoReport, console: Console) -> None:
    """Print the per-group table, the reasons, and what is still active."""
    first = report.groups[0].prompt
    console.print(
        f"The drift-review scenario replayed in scope [bold]{report.scope}[/] under the shipped policy "
        f"(touch mode flag for kind drift): the group-0 drift review ({demo.REVIEW_NODE}) reported "
        f"{first.all_findings} drift findings, {first.all_chars:,} characters, "
        f"{sum(1 for f in report.findings if f.resolved_when is not None)} of them with a check (resolved_when)."
    )
    review = Table(title="The group-0 drift review, as stored (paths normalised by the database)")
    review.add_column("finding")
    review.add_column("severity")
    review.add_column("title")
    review.add_column("paths")
    review.add_column("check")
    review.add_column("chars", justify="right")
    for f in report.findings:
        review.add_row(f.finding_key or "", f.severity, f.title, ", ".join(f.paths) or "(none)",
                       "yes" if f.resolved_when is not None else "no", str(f.chars))
    console.print(review)
    table = Table(title="Drift findings injected into each group's coder prompt (ledger.read_prompt_text; figures "
                        "from the database)")
    table.add_column("\n\ngroup", justify="right")
    table.add_column("without\nledger\nchars", justify="right")
    table.add_column("with\nledger\nfindings", justify="right")
    table.add_column("\n\nchars", justify="right")
    table.add_column("\n\nflagged", justify="right")
    table.add_column("\nverdicts\n(scripted)", no_wrap=True)
    table.add_column("\n\nthen the group's merge", no_wrap=True)
    for g in report.groups:
        table.add_row(str(g.group), f"{g.prompt.all_chars:,}", str(g.read.included_count),
                      f"{g.read.included_chars:,}", str(len(g.read.flagged)), _verdicts(g.read), _merge(g))
    last, read = report.after_last, report.after_read
    table.add_section()
    table.add_row("after 7", f"{last.all_chars:,}", str(read.included_count), f"{read.included_chars:,}",
                  str(len(read.flagged)), _verdicts(read), "")
    console.print(table)
    groups = report.groups
    verdicts = [v for g in groups for v in g.read.verdicts]
    without = sum(g.prompt.all_chars for g in groups)
    carried = sum(g.read.included_chars for g in groups)
    console.print(
        f"Prompts of groups {groups[0].group}-{groups[-1].group}: {without:,} characters of drift findings without "
        f"the ledger, {carried:,} with it ({without - carried:,} not injected), "
        f"{sum(len(g.read.flagged) for g in groups)} entries shown as possibly resolved, "
        f"{len(verdicts)} verdicts given by the agents "
        f"({sum(1 for v in verdicts if v.verdict == 'resolved')} resolved, "
        f"{sum(1 for v in verdicts if v.verdict == 'still_true')} still true). The verdicts are scripted from the "
        f"scenario's known truth; a real agent checks the code."
    )

    why = Table(title="Why: every decision, from ledger.read_audit (merges) and ledger.verify_finding (verdicts)")
    why.add_column("group", justify="right")
    why.add_column("finding")
    why.add_column("action")
    why.add_column("rule")
    why.add_column("evidence")
    for g in groups:
        for v in g.read.verdicts:
            why.add_row(str(g.group), v.finding_key, v.audit_action, v.audit_rule or "",
                        f"the group's agent: {v.evidence}")
        for d in g.decisions:
            why.add_row(str(g.group), d.finding_key or "", d.action, d.rule or "", _why(d))
    for v in report.after_read.verdicts:
        why.add_row("after 7", v.finding_key, v.audit_action, v.audit_rule or "", f"the next agent: {v.evidence}")
    console.print(why)

    still = Table(title=f"Still active after group {groups[-1].group} (ledger.active_findings)")
    still.add_column("finding")
    still.add_column("severity")
    still.add_column("paths")
    for a in report.still_active:
        still.add_row(f"{a.finding_key} {a.title}", a.severity, ", ".join(a.paths) or "(none: no merge touches it)")
    console.print(still)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [demo_command]
