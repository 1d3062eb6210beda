"""The ledger's basic verbs: ``migrate``, ``active``, ``audit``,
``hygiene-mode``, ``replay-git`` (recording a repository's history) and
``export`` (a scope's findings as SARIF)."""

from __future__ import annotations

from typing import Any

import click
import psycopg
from rich.table import Table

from .. import api, gitlog, reconnect, sarif
from .. import findings as lifecycle
from ..errors import migration_hint
from .helpers import (
    UserError,
    connect,
    console,
    create_option,
    dsn_option,
    offer_create,
    progress_bar,
    reconnect_after_loss,
    renames_option,
    resolve_dsn,
    unreadable_warning,
    user_errors,
)


@click.command()
@dsn_option
@click.option("--revision", default="head", show_default=True)
@user_errors
def migrate(dsn: str | None, revision: str) -> None:
    """Upgrade the database to REVISION (alembic)."""
    from ..folds import FoldRefused

    target = resolve_dsn(dsn)
    try:
        api.migrate(target, revision)
    except FoldRefused as exc:  # a database at a folded revision whose catalog is not the folded state
        raise UserError(f"migration refused: {exc}") from exc
    except psycopg.Error as exc:
        if exc.sqlstate is None or exc.sqlstate.startswith("08"):
            raise  # cannot reach PostgreSQL: user_errors has its line
        hint = migration_hint(exc)
        raise UserError(f"migration failed: {exc}" + (f": {hint}" if hint else "")) from exc
    click.echo(f"migrated to {revision}")


@click.command()
@dsn_option
@click.argument("scope")
@user_errors
def active(dsn: str | None, scope: str) -> None:
    """List the active findings of SCOPE in prompt order; a flagged finding
    (merges touched it since its last still_true verdict) shows its latest
    touch and how many touches there are: verify it (`verify ID resolved|still_true`)."""
    with connect(dsn) as conn:
        rows = lifecycle.read_prompt_findings(conn, scope, max_touches=1).findings
    table = Table(title=f"active findings of {scope} ({len(rows)})")
    for col in ("id", "key", "kind", "severity", "title", "paths", "flagged"):
        table.add_column(col)
    for f in rows:
        flagged = ""
        if f.touched_by:
            t = f.touched_by[-1]
            flagged = " ".join(x for x in (f"{f.touched_count}x, latest", t.sha[:12], t.subject or "") if x)
        table.add_row(str(f.id), f.finding_key or "", f.kind, f.severity, f.title, ", ".join(f.paths), flagged)
    console.print(table)


@click.command()
@dsn_option
@click.argument("scope")
@click.option("--finding", "finding_id", type=int, default=None, help="only this finding's rows")
@click.option("--merge", "merge_id", type=int, default=None, help="only this merge's rows")
@user_errors
def audit(dsn: str | None, scope: str, finding_id: int | None, merge_id: int | None) -> None:
    """Print the audit trail of SCOPE: for each decision the finding, the
    commit (short sha) and its subject, the action, the rule and the evidence."""
    with connect(dsn) as conn:
        rows = lifecycle.read_audit(conn, scope, finding_id=finding_id, merge_id=merge_id)
    table = Table(title=f"audit of {scope} ({len(rows)} rows)")
    for col in ("id", "when", "finding", "commit", "action", "rule", "evidence"):
        # the commit is its short sha and subject; it and the evidence wrap, the rest stays on one line
        table.add_column(col, no_wrap=col not in ("commit", "evidence"), overflow="fold")
    for a in rows:
        commit = " ".join(x for x in ((a.commit_sha or "")[:12], a.subject or "") if x)
        table.add_row(
            str(a.id),
            a.created_at.strftime("%Y-%m-%d %H:%M:%S"),
            str(a.finding_id or ""),
            commit,
            a.action,
            a.rule or "",
            a.evidence or "",
        )
    console.print(table)


@click.command("hygiene-mode")
@dsn_option
@click.argument("scope")
@click.argument("mode", type=click.Choice(["on", "dry", "off"]))
@create_option
@user_errors
def hygiene_mode(dsn: str | None, scope: str, mode: str, create: bool) -> None:
    """Set SCOPE's hygiene mode: on (supersede), dry (audit only), off."""
    with connect(dsn) as conn, offer_create():
        click.echo(f"{scope}: hygiene_mode = {api.set_hygiene_mode(conn, scope, mode, create=create)}")


@click.command("replay-git")
@dsn_option
@click.argument("repo", type=click.Path(file_okay=False, path_type=str))
@click.option("--scope", required=True, help="scope to record the merges into (created on first use)")
@click.option(
    "--range", "rev_range", default="HEAD", show_default=True, help="revision range, e.g. v1.0..main"
)
@click.option("--since", default=None, help="only commits after this date (git log --since: 2026-01-01, 2.weeks)")
@renames_option
@click.option("--batch-size", type=click.IntRange(1, 10000), default=gitlog.BATCH_SIZE, show_default=True,
              help="merges per transaction")
@click.option("--reconnect-timeout", type=click.FloatRange(0), default=60.0, show_default=True,
              help="seconds to keep reconnecting when the connection is lost mid-run (0: give up at once)")
@user_errors
def replay_git(dsn: str | None, repo: str, scope: str, rev_range: str, since: str | None, no_renames: bool,
               batch_size: int, reconnect_timeout: float) -> None:
    """Record REPO's first-parent history into SCOPE, oldest first.

    Each commit on the first-parent line becomes a merge with the paths it
    touched (both sides of a rename), the ones it added and deleted, and its
    -U0 hunks; the scope's rules decide what each merge retires. A commit
    whose diff cannot be read (a partial or shallow clone) is recorded
    without hunks, named in one warning line. A commit with a path the
    ledger refuses (a control or format character) or a message over
    262,144 characters is recorded without that path or with the message
    cut, a trailer line in its message saying so, and a warning line naming
    it. Commits already recorded have
    no second effect, so rerunning resumes. The next batch is read from git
    while the current one is recorded. Each batch of merges is one
    transaction, with the answers to the file-state requests its merges
    opened for checked findings (read from REPO at each commit; a rerun
    answers any left pending). An answer the ledger refuses (a state
    another writer answered otherwise, a pattern over the statement
    timeout) is one warning line; its requests stay pending and the
    batch's merges are kept. "findings superseded" counts the retirements
    of the merges recorded, by every rule, the checks their answers held
    included.

    A connection lost mid-run (a failover: give --dsn a host list with
    target_session_attrs=read-write, docs/scaling.md) is made again for up
    to --reconnect-timeout seconds, and the replay resumes after the commits
    the database holds (a batch whose commit got no answer counts as already
    recorded when it did commit). No server at the start is an error at
    once, with nothing written.
    """
    history = gitlog.read_merges(repo, rev_range, since, renames=not no_renames)
    recorded = already = superseded = 0
    lacking: list[gitlog.GitMerge] = []
    changed: list[str] = []
    reported: set[str] = set()
    refused: list[str] = []
    conn = connect(dsn)
    try:
        progress = progress_bar()
        with progress:
            task = progress.add_task(f"recording {len(history)} commits into {scope}", total=len(history))

            def on_merge(merge: gitlog.GitMerge, result: Any) -> None:
                nonlocal recorded, already, superseded
                reported.add(merge.sha)
                if result.recorded:
                    recorded += 1
                    superseded += len(result.superseded)
                else:
                    already += 1
                if merge.diff_error is not None:
                    lacking.append(merge)
                if note := gitlog.replay_note(merge):
                    changed.append(f"warning: commit {merge.sha[:12]} recorded changed: {note}")
                progress.advance(task)

            todo: Any = history
            while True:
                try:
                    gitlog.replay(conn, scope, todo, on_merge=on_merge, repo=repo, batch_size=batch_size,
                                  on_refused=lambda r: refused.append(r.warning()))
                    break
                except psycopg.OperationalError as exc:
                    if not reconnect.connection_lost(conn, exc) or reconnect_timeout <= 0:
                        raise
                    conn.close()
                    conn = reconnect_after_loss(dsn, reconnect_timeout, exc)
                    done = gitlog.recorded_shas(conn, scope)
                    for sha in history.shas:
                        if sha in done and sha not in reported:
                            reported.add(sha)
                            already += 1
                            progress.advance(task)
                    todo = gitlog.GitHistory(history.repo, [s for s in history.shas if s not in done],
                                             history.renames)
    finally:
        conn.close()
    warning = unreadable_warning(lacking)
    if warning:
        click.echo(warning, err=True)
    for line in [*changed, *refused]:
        click.echo(line, err=True)
    click.echo(
        f"{scope}: {recorded} merges recorded, {already} already recorded, {superseded} findings superseded"
    )


@click.command()
@dsn_option
@click.argument("scope")
@click.option("--format", "fmt", type=click.Choice(["sarif"]), default="sarif", show_default=True,
              help="the output format")
@click.option("--include-retired", is_flag=True, default=False,
              help="also the superseded and dismissed findings (SARIF baselineState absent)")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=str), default="-", show_default=True,
              help="the file to write (-: standard output)")
@user_errors
def export(dsn: str | None, scope: str, fmt: str, include_retired: bool, output: str) -> None:
    """Write SCOPE's active findings as a SARIF 2.1.0 log (docs/sarif.md)."""
    with connect(dsn) as conn:
        log = sarif.export_sarif(conn, scope, include_retired=include_retired)
    with click.open_file(output, "w", encoding="utf-8") as out:
        sarif.write_sarif(log, out)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [migrate, active, audit, hygiene_mode, replay_git, export]
