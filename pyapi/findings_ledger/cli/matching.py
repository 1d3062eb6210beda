"""The message-matching verbs: ``import-findings`` (findings files and drift
reviews) and ``hygiene --mode dry`` (what a replay would retire, and why)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import psycopg

from .. import gitlog, importers, matching
from ..models import Decision
from .helpers import dsn_option, resolve_dsn, user_errors


@click.command("import-findings")
@dsn_option
@click.argument("source", type=click.Path(exists=True, path_type=Path))
@click.option("--scope", default=None, help="scope to import into")
@click.option(
    "--workspace",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="derive the scope key from this workspace directory instead (collision-free; see docs/cli.md)",
)
@user_errors
def import_findings(dsn: str | None, source: Path, scope: str | None, workspace: Path | None) -> None:
    """Import SOURCE: a findings directory (YYYY-MM-DD-<slug>.md files with
    YAML front matter), one such file, or a drift-review JSON file.

    Re-importing creates no duplicates. Files that cannot be parsed or are
    rejected are reported on stderr by name and skipped; the rest is imported.
    """
    if (scope is None) == (workspace is None):
        raise click.UsageError("give exactly one of --scope and --workspace")
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        if workspace is not None:
            scope = importers.workspace_scope(conn, workspace)
        assert scope is not None
        report = importers.import_findings(conn, scope, source)
    for item in report.imported:
        f = item.finding
        click.echo(f"{f.status:<9}  #{f.id}  {f.finding_key or f.slug or ''}  {item.name}")
    for skipped in report.skipped:
        click.echo(f"skipped: {skipped.name}: {skipped.reason}", err=True)
    click.echo(
        f"scope {scope}: {report.count('inserted')} inserted, {report.count('updated')} updated, "
        f"{report.count('unchanged')} unchanged, {report.count('retired')} retired, "
        f"{len(report.skipped)} skipped"
    )


def _finding_label(d: Decision) -> str:
    detail = d.detail or {}
    if d.finding_id is None:
        return "(merge)"
    name = detail.get("finding_key") or detail.get("slug") or ""
    return f"#{d.finding_id} {name}".rstrip()


@click.command("hygiene")
@dsn_option
@click.option("--mode", type=click.Choice(["dry"]), required=True, help="dry: preview only, change nothing")
@click.argument("repo", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--scope", required=True, help="scope whose findings the replay would retire")
@click.option("--range", "rev_range", default="HEAD", show_default=True, help="git revision range")
@click.option("--since", default=None, help="only commits since this date (git log --since)")
@user_errors
def hygiene(dsn: str | None, mode: str, repo: Path, scope: str, rev_range: str, since: str | None) -> None:
    """Print what replaying REPO's first-parent history into SCOPE would
    retire, and why, without changing anything (--mode dry).

    Every commit is recorded in a transaction with the scope forced to dry
    mode, its decisions are printed, and the transaction is rolled back.
    """
    merges = list(gitlog.read_merges(repo, rev_range, since=since))
    with psycopg.connect(resolve_dsn(dsn), autocommit=True) as conn:
        previews = matching.preview_replay(conn, scope, merges)
    retired: dict[int, str] = {}
    for merge, result in previews:
        if not result.decisions:
            continue
        subject = merge.message.splitlines()[0] if merge.message else ""
        note = "" if result.recorded else "  (already recorded: its original decisions)"
        click.echo(f"{merge.sha[:12]}  {subject}{note}")
        for d in result.decisions:
            action = d.action
            if d.action == "would_supersede" and d.finding_id is not None:
                if d.finding_id in retired:
                    action = f"would_supersede (already by {retired[d.finding_id]})"
                else:
                    retired[d.finding_id] = merge.sha[:12]
            click.echo(
                f"    {action:<16} {_finding_label(d):<24} {d.rule or '-':<8} "
                f"{d.evidence or '':<32} {d.reason or ''}"
            )
    click.echo(
        f"{len(merges)} commits read; a replay would retire {len(retired)} finding(s) of scope {scope} "
        f"(mode {mode}: nothing was changed)"
    )
    sys.stdout.flush()


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [import_findings, hygiene]
