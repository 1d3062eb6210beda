"""The finding-lifecycle verbs: ``history``, ``dismiss``, ``restore``,
``prompt`` and ``verify``, with the timeline's formatting (:func:`format_header`,
:func:`format_event`)."""

from __future__ import annotations

import json
from datetime import timedelta

import click

from .. import findings as lifecycle
from ..models import FindingLifecycle, HistoryEvent
from .helpers import connect, dsn_option, user_errors


def _when(ev: HistoryEvent) -> str:
    return ev.at.strftime("%Y-%m-%d %H:%M:%S")


def format_header(f: FindingLifecycle) -> list[str]:
    """The lines that introduce a finding's timeline: what it is and its state now."""
    key = f" {f.finding_key}" if f.finding_key else ""
    lines = [f"finding {f.id}{key} [{f.scope}] {f.kind}/{f.severity}: {f.title}"]
    state = f"state: {f.state}"
    if f.state == "dismissed":
        state += f" ({f.resolution} by {f.dismissed_by}: {f.dismissal_reason})"
    elif f.state == "superseded":
        state += f" (rule {f.supersede_rule} by {f.superseded_by})"
    counters = f"reported {f.report_count}x, reopened {f.reopen_count}x"
    if f.last_reported_at is not None:
        counters += f", last reported {f.last_reported_at.strftime('%Y-%m-%d %H:%M:%S')}"
    if f.review_run:
        counters += f", last review run {f.review_run}"
    return [*lines, state, counters]


def format_event(ev: HistoryEvent) -> str:
    """One timeline line: time, event, rule, actor, reason, evidence, merge, detail."""
    parts = [_when(ev), f"{ev.event:<18}"]
    if ev.rule:
        parts.append(f"rule={ev.rule}")
    if ev.actor:
        parts.append(f"by={ev.actor}")
    if ev.merge_id is not None:
        parts.append(f"merge={ev.merge_id}" + (f" ({ev.commit_sha})" if ev.commit_sha else ""))
    if ev.evidence:
        parts.append(f"evidence={ev.evidence}")
    if ev.reason:
        parts.append(f"reason={ev.reason!r}")
    if ev.detail:
        parts.append("detail=" + json.dumps(ev.detail, sort_keys=True, ensure_ascii=False))
    return "  ".join(parts)


@click.command()
@dsn_option
@click.argument("finding_id", type=int)
@user_errors
def history(dsn: str | None, finding_id: int) -> None:
    """Print the timeline of finding FINDING_ID: every transition with its
    actor, reason and evidence, and the sessions it was injected into."""
    with connect(dsn) as conn:
        finding = lifecycle.read_finding(conn, finding_id)
        events = lifecycle.read_history(conn, finding_id)
    for line in format_header(finding):
        click.echo(line)
    click.echo(f"timeline ({len(events)} events):")
    for ev in events:
        click.echo("  " + format_event(ev))


@click.command()
@dsn_option
@click.argument("finding_id", type=int)
@click.argument("resolution", type=click.Choice(["accepted", "false_positive", "wont_fix", "duplicate"]))
@click.option("--actor", required=True, help="who decides (a person)")
@click.option("--reason", required=True, help="why; stored on the finding and in the audit")
@user_errors
def dismiss(dsn: str | None, finding_id: int, resolution: str, actor: str, reason: str) -> None:
    """Dismiss finding FINDING_ID with RESOLUTION: it leaves the prompts and
    no automation brings it back (only `restore`)."""
    with connect(dsn) as conn:
        f = lifecycle.dismiss_finding(conn, finding_id, resolution, actor, reason)
    click.echo(f"finding {f.id}: {f.state} ({f.resolution} by {f.dismissed_by})")


@click.command()
@dsn_option
@click.argument("finding_id", type=int)
@click.option("--actor", required=True, help="who undoes it")
@click.option("--reason", required=True, help="why; stored in the audit")
@user_errors
def restore(dsn: str | None, finding_id: int, actor: str, reason: str) -> None:
    """Make superseded or dismissed finding FINDING_ID active again."""
    with connect(dsn) as conn:
        f = lifecycle.restore_finding(conn, finding_id, actor, reason)
    click.echo(f"finding {f.id}: {f.state} (reopened {f.reopen_count}x)")


@click.command()
@dsn_option
@click.argument("scope")
@click.option("--kind", "kinds", multiple=True, help="only this kind (repeatable)")
@click.option("--max-age-hours", type=float, default=None, help="only findings reported within this many hours")
@click.option("--max-chars", type=int, default=None,
              help="character budget (title + description + touch lines per finding)")
@click.option("--max-touches", type=int, default=3, show_default=True,
              help="how many of a flagged finding's latest touches to list")
@click.option("--group", "current_group", default=None,
              help="the task group the prompt is for (a group, or a node id such as 07_spec:4)")
@click.option("--max-groups", type=int, default=None,
              help="with --group: only findings generated within this many groups back "
                   "(the drift-review scenario's option C)")
@user_errors
def prompt(dsn: str | None, scope: str, kinds: tuple[str, ...], max_age_hours: float | None,
           max_chars: int | None, max_touches: int, current_group: str | None, max_groups: int | None) -> None:
    """Print the findings block a prompt builder injects for SCOPE, as the
    database prints it (ledger.read_prompt_text: a flagged finding with its
    latest touches and how to verify it), then what the budget left out.
    --group/--max-groups keep only the findings of the last groups, on top
    of supersession (never instead of it)."""
    max_age = timedelta(hours=max_age_hours) if max_age_hours is not None else None
    with connect(dsn) as conn:
        text = lifecycle.read_prompt_text(conn, scope, max_chars=max_chars, kinds=kinds or None,
                                          max_touches=max_touches, max_age=max_age, current_group=current_group,
                                          max_groups=max_groups)
    if text.prompt:
        click.echo(text.prompt)
        click.echo()
    click.echo(f"{text.included_count} findings, {text.included_chars} chars; "
               f"left out {text.omitted_count} findings, {text.omitted_chars} chars")


@click.command()
@dsn_option
@click.argument("finding_id", type=int)
@click.argument("verdict", type=click.Choice(["resolved", "still_true"]))
@click.option("--evidence", required=True, help="what was checked, and where (stored in the audit)")
@click.option("--verifier", required=True, help="who checked (the agent or person giving the verdict)")
@user_errors
def verify(dsn: str | None, finding_id: int, verdict: str, evidence: str, verifier: str) -> None:
    """Give a verdict on finding FINDING_ID, checked against the code now
    (ledger.verify_finding, role ledger_agent): resolved supersedes it by
    the latest merge that touched it (rule verified); still_true keeps it
    and clears its flag, so prompts list only later touches."""
    with connect(dsn) as conn:
        a = lifecycle.verify_finding(conn, finding_id, verdict, evidence, verifier)
    commit = f" after {a.commit_sha[:12]} ({a.subject})" if a.commit_sha else ""
    click.echo(f"finding {a.finding_id}: {a.action}{commit} by {a.actor} (audit {a.id})")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [history, dismiss, restore, prompt, verify]
