"""The ``evaluate`` verb: replay a labelled corpus of real git histories
through the schema (:mod:`findings_ledger.evaluate`) in a scratch database
and print precision and recall per rule and per policy.

The scratch database (``ledger_evaluate_<hex>``) is created on the server
``--dsn`` names (the throwaway cluster by default), migrated to head, and
dropped afterwards, so nothing is left in the database named: the replay
writes thousands of merges.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click
import psycopg
from psycopg import sql
from rich.console import Console
from rich.table import Table

from .. import api
from .. import evaluate as ev
from ..testing.cluster import ClusterError, catalog_lock
from .helpers import console, dsn_option, progress_bar, resolve_dsn, user_errors

BEGIN = "<!-- evaluate:begin -->"
END = "<!-- evaluate:end -->"


@contextmanager
def scratch_database(dsn: str) -> Iterator[str]:
    """A fresh, migrated database on ``dsn``'s server, dropped on exit."""
    name = f"ledger_evaluate_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ValueError(f"evaluate needs a scratch database and may not create one on this server: "
                         f"{str(exc).strip().splitlines()[0]}") from None
    target = psycopg.conninfo.make_conninfo(dsn, dbname=name)
    try:
        api.migrate(target)
        yield target
    finally:  # under the shared catalog lock: a test run's downgrade below the baseline waits for it
        with ExitStack() as held:
            try:
                held.enter_context(catalog_lock(dsn))
            except ClusterError as exc:  # a lock another user holds, or no usable lock file: drop all the same
                click.echo(f"warning: {exc}; dropping the scratch database {name} without it", err=True)
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def print_table(evaluation: ev.Evaluation, out: Console) -> None:
    table = Table(title="Decisions on the labelled corpus (TP: retired by its fix; FP: by any other commit)")
    for h in ev.HEADERS:
        table.add_column(h, justify="left" if h in ("policy", "case", "rule") else "right")
    previous = None
    for row in ev.table_rows(evaluation):
        if row[0] and previous is not None and row[0] != previous:
            table.add_section()
        previous = row[0] or previous
        table.add_row(*row)
    out.print(table)


def update_doc(path: Path, evaluation: ev.Evaluation) -> None:
    """Replace the block between the markers of ``path`` with the table."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {BEGIN} ... {END} block to write the table into")
    block = f"{BEGIN}\n\n{ev.markdown(evaluation)}\n{ev.summary(evaluation, timing=False)}\n\n{END}"
    path.write_text(pattern.sub(lambda _: block, text, count=1), encoding="utf-8")


@click.command("evaluate")
@dsn_option
@click.argument("corpus", type=click.Path(path_type=Path))
@click.option("--repo", "repos", multiple=True,
              help="only this repository (owner/name or its file name; repeatable)")
@click.option("--policy", "policy_names", multiple=True,
              help="only this policy (by name; repeatable; default: all)")
@click.option("--isolated", is_flag=True, default=False,
              help="replay every finding alone in its own scope (slower; the same figures)")
@click.option("--markdown", is_flag=True, default=False, help="print the table as Markdown")
@click.option("--write-doc", "doc", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"also write the Markdown table into this file, between {BEGIN} and {END}")
@click.option("--check", is_flag=True, default=False,
              help="exit 1 when the default policy retires any finding at a commit other than its fix")
@user_errors
def evaluate_command(dsn: str | None, corpus: Path, repos: tuple[str, ...], policy_names: tuple[str, ...],
                     isolated: bool, markdown: bool, doc: Path | None, check: bool) -> None:
    """Replay the labelled corpus in CORPUS (a directory of owner__name.json
    files, see docs/decision-quality.md) through the schema, in a scratch
    database, and print true and false positives, false negatives, precision
    and recall per rule and per policy."""
    corpora = ev.load_corpus(corpus, repos)
    policies = ev.POLICIES
    if policy_names:
        known = {p.name: p for p in ev.POLICIES}
        unknown = [n for n in policy_names if n not in known]
        if unknown:
            raise ValueError(f"unknown policy {unknown[0]!r}; the policies are: {', '.join(known)}")
        policies = tuple(known[n] for n in policy_names)
    progress = progress_bar()
    with scratch_database(resolve_dsn(dsn)) as target, psycopg.connect(target, autocommit=True) as conn, progress:
        task = progress.add_task("replaying merges", total=ev.total_merges(corpora, policies))
        result = ev.evaluate(conn, corpora, policies, isolated=isolated,
                             progress=lambda n: progress.advance(task, n))
    if markdown:
        click.echo(ev.markdown(result), nl=False)
    else:
        print_table(result, console)
    click.echo(ev.summary(result))
    dropped = result.dropped_keywords()
    if dropped:
        click.echo("strong keywords the ledger refused (LD101, left out): "
                   + "; ".join(f"{fid}: {', '.join(kws)}" for fid, kws in sorted(dropped.items())))
    default = policies[0].name
    wrong = result.false_retirements(default)
    for o in wrong:
        click.echo(f"false retirement under {default!r}: {o.finding.id} by {(o.superseded_by or '')[:12]} "
                   f"(rule {o.rule}; labelled fix {(o.finding.label.resolved_by or 'none')[:12]})")
    if doc is not None:
        update_doc(doc, result)
    if check and wrong:
        raise ValueError(f"the {default!r} policy retired {len(wrong)} finding(s) at a commit other than its fix")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [evaluate_command]
