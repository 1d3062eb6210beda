"""The message-matching verbs: ``import-findings`` (findings files and drift
reviews), ``policy`` (a scope's match policy) and ``hygiene --mode dry``
(what a replay would retire, and why)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import decisions as matching
from .. import gitlog, importers, sarif
from ..models import Decision, MatchPolicy
from .helpers import (
    UserError,
    connect,
    create_option,
    dsn_option,
    offer_create,
    progress_bar,
    renames_option,
    unreadable_warning,
    user_errors,
)


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
@click.option(
    "--task-group", default=None,
    help="task group of the findings that name none (a group, or the reporting node: 07_spec:0)",
)
@click.option(
    "--observed-at", "observed_text", default=None, metavar="TIME",
    help="when the findings that carry no date were observed (ISO 8601; a bare date is the end of that day, UTC)",
)
@click.option(
    "--observed-at-commit", "observed_commit", nargs=2, default=None, metavar="SHA REPO",
    help="the same, as the committer date of commit SHA in git repository REPO (e.g. the spec's commit)",
)
@click.option(
    "--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=None,
    help="SARIF: the repository the locations are relative to (default: the current directory)",
)
@click.option(
    "--producer-root", default=None, metavar="PATH",
    help="SARIF: the checkout the log was made in (a CI job's path or file: URI); its absolute URIs are taken "
         "relative to it",
)
@user_errors
def import_findings(dsn: str | None, source: Path, scope: str | None, workspace: Path | None,
                    task_group: str | None, observed_text: str | None,
                    observed_commit: tuple[str, str] | None, root: Path | None, producer_root: str | None) -> None:
    """Import SOURCE: a findings directory (YYYY-MM-DD-<slug>.md files with
    YAML front matter), one such file, a drift-review JSON file, or a SARIF
    2.1.0 log (*.sarif, *.sarif.json: each run replaces the previous set of
    its tool and category, docs/sarif.md).

    Re-importing creates no duplicates. Files that cannot be parsed or are
    rejected are reported on stderr by name and skipped; the rest is imported.
    A single file that yields nothing is an error (exit 1). A drift review
    whose entries carry no date is observed now (a replay of earlier history
    retires none of them): a one-line warning says so.
    """
    if (scope is None) == (workspace is None):
        raise click.UsageError("give exactly one of --scope and --workspace")
    if source.is_file() and sarif.is_sarif_path(source):
        progress = progress_bar()
        with progress:
            task = progress.add_task(f"reading {source.name}", total=None)
            # bad input: one line, before connecting
            runs = sarif.read_sarif(source, root=root, producer_root=producer_root)
            with connect(dsn) as conn:
                if workspace is not None:
                    scope = importers.workspace_scope(conn, workspace)
                assert scope is not None
                done = []
                with conn.transaction():
                    sarif.watch_client(conn)
                    for i, run in enumerate(runs):
                        progress.update(task, total=len(runs), completed=i,
                                        description=f"importing run {i + 1} of {len(runs)} ({run.tool}: "
                                                    f"{len(run.findings)} results)")
                        done.append(sarif.replace_run(conn, scope, run))
                    progress.update(task, completed=len(runs), description="committing")
        for run in runs:
            for warning in run.warnings:
                click.echo(f"warning: {warning}", err=True)
        for imported in done:
            r, run = imported.result, imported.run
            click.echo(f"{run.tool}{'/' + run.category if run.category else ''} run {run.review_run}: "
                       f"{len(run.findings)} results: {r.added} added, {r.kept} kept, {r.reopened} reopened, "
                       f"{r.still_dismissed} still dismissed, {r.superseded} retired (reanalysis), "
                       f"{r.would_supersede} would retire, {imported.anchors_moved} anchors moved")
        return
    if source.is_file() and source.suffix.lower() not in (".md", ".json"):
        raise UserError(f"{source.name}: not a findings source: import-findings reads a findings directory, "
                        "a YYYY-MM-DD-<slug>.md file, a drift-review .json or a SARIF .sarif file")
    if observed_text is not None and observed_commit:
        raise ValueError("give at most one of --observed-at and --observed-at-commit")
    observed_at = None
    if observed_text is not None:
        observed_at = importers.parse_observed(observed_text, "--observed-at")
        if observed_at is None:
            raise ValueError("--observed-at '' is not a date or an ISO 8601 timestamp")
    elif observed_commit:
        sha, repo = observed_commit
        observed_at = importers.commit_time(repo, sha)
    with connect(dsn) as conn:
        if workspace is not None:
            scope = importers.workspace_scope(conn, workspace)
        assert scope is not None
        report = importers.import_findings(conn, scope, source, task_group=task_group, observed_at=observed_at,
                                           observed_day=observed_text is not None and importers.is_day(observed_text))
    if report.undated:
        click.echo(f"warning: {len(report.undated)} drift finding(s) of {source.name} carry no date: observed now, "
                   "so a replay of earlier history retires none of them (give --observed-at or "
                   "--observed-at-commit SHA REPO)", err=True)
    for item in report.imported:
        f = item.finding
        click.echo(f"{f.status:<9}  #{f.id}  {f.finding_key or f.slug or ''}  {item.name}")
    if not report.imported and len(report.skipped) == 1:
        # the one file yielded nothing: bad input, one line, exit 1
        raise UserError(f"{report.skipped[0].name}: {report.skipped[0].reason}")
    for skipped in report.skipped:
        click.echo(f"skipped: {skipped.name}: {skipped.reason}", err=True)
    if not report.imported and report.skipped:
        raise UserError(f"nothing imported from {source}: {len(report.skipped)} skipped")
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
@renames_option
@user_errors
def hygiene(dsn: str | None, mode: str, repo: Path, scope: str, rev_range: str, since: str | None,
            no_renames: bool) -> None:
    """Print what replaying REPO's first-parent history into SCOPE would
    retire, and why, without changing anything (--mode dry).

    Every commit is recorded in a transaction with the scope forced to dry
    mode, its decisions are printed, and the transaction is rolled back.
    """
    merges = list(gitlog.read_merges(repo, rev_range, since=since, renames=not no_renames))
    with connect(dsn) as conn:
        previews = gitlog.preview_replay(conn, scope, merges)
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
    warning = unreadable_warning(merges)
    if warning:
        click.echo(warning.replace("recorded without hunks", "read without hunks"), err=True)
    sys.stdout.flush()


def _names(value: str | None) -> list[str] | None:
    """A comma-separated option as a list (None: not given; "": the empty list)."""
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def format_policy(p: MatchPolicy) -> list[str]:
    """A scope's policy, one setting a line."""
    return [
        f"scope           {p.scope}",
        f"hygiene_mode    {p.hygiene_mode}",
        f"rules           {', '.join(p.enabled_rules) or '(none)'}",
        f"path_kinds      {', '.join(p.path_supersede_kinds) or '(none)'}",
        f"slug_mentions   {'on' if p.slug_mention_resolves else 'off'}",
        f"default_branch  {p.default_branch or '(none: every branch counts)'}",
        f"line_context    {p.line_context}",
        "touch           " + (", ".join(f"{k}: {v}" for k, v in sorted(p.touch_modes.items()))
                              or "(default: flag for drift, retire for every other kind)"),
    ]


@click.command("policy")
@dsn_option
@click.argument("scope")
@click.option("--rules", default=None, help="evidence rules in force, comma-separated: path,key,slug,keyword,title")
@click.option("--path-kinds", default=None,
              help="finding kinds the path rule supersedes, comma-separated ('*': every kind; '': none)")
@click.option("--slug-mentions", type=click.Choice(["on", "off"]), default=None,
              help="on: a bare mention of a finding's slug or file name resolves it")
@click.option("--default-branch", default=None,
              help="merges on other branches change nothing ('': every branch counts)")
@click.option("--line-context", type=int, default=None,
              help="lines around a line anchor a hunk may change to retire it (0: only the anchored lines)")
@click.option("--touch", type=click.Choice(["retire", "recheck", "flag", "default"]), default=None,
              help="what a resolving touch does to findings without a check: retire (the path rule), recheck "
                   "(queue a recheck request), flag (keep it, list the merge as touched_by); default: back to the "
                   "shipped mode (flag for drift, retire for every other kind)")
@click.option("--kind", "touch_kind", default=None, help="the finding kind --touch applies to (default: every kind)")
@create_option
@user_errors
def policy(dsn: str | None, scope: str, rules: str | None, path_kinds: str | None, slug_mentions: str | None,
           default_branch: str | None, line_context: int | None, touch: str | None, touch_kind: str | None,
           create: bool) -> None:
    """Show SCOPE's match policy, or change the settings given (the others
    stay). An unknown scope is an error unless --create is given. A --kind or
    --path-kinds kind that no finding of SCOPE has (and not review, drift or
    analysis) is stored with a warning: most likely misspelt."""
    if touch_kind is not None and touch is None:
        raise click.UsageError("--kind needs --touch (retire, recheck, flag or default)")
    with connect(dsn) as conn, offer_create():
        # a kind neither shipped nor of the scope's findings: the function's WARNING, one line
        conn.add_notice_handler(lambda d: click.echo(f"warning: {d.message_primary}", err=True)
                                if d.severity_nonlocalized == "WARNING" else None)
        stored = matching.set_match_policy(
            conn,
            scope,
            enabled_rules=_names(rules),
            path_supersede_kinds=_names(path_kinds),
            slug_mention_resolves=None if slug_mentions is None else slug_mentions == "on",
            default_branch=default_branch,
            line_context=line_context,
            create=create,
            touch=None if touch is None else ("" if touch == "default" else touch),
            touch_kind=touch_kind,
        )
    for line in format_policy(stored):
        click.echo(line)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [import_findings, policy, hygiene]
