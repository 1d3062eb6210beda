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
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import click
import psycopg
from psycopg import sql
from rich.console import Console
from rich.table import Table

from .. import api
from .. import evaluate as ev
from .. import evaluate_drift as ed
from .helpers import console, dsn_option, progress_bar, resolve_dsn, user_errors

BEGIN = "<!-- evaluate:begin -->"
END = "<!-- evaluate:end -->"
DRIFT_BEGIN = "<!-- evaluate-drift:begin -->"
DRIFT_END = "<!-- evaluate-drift:end -->"


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
        from ..testing.cluster import ClusterError, catalog_lock  # the test kit's lock, loaded only here

        with ExitStack() as held:
            try:
                held.enter_context(catalog_lock(dsn))
            except ClusterError as exc:  # a lock another user holds, or no usable lock file: drop all the same
                click.echo(f"warning: {exc}; dropping the scratch database {name} without it", err=True)
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def print_table(evaluation: ev.Evaluation, out: Console) -> None:
    table = Table(title="Decisions on the labelled corpus (TP: retired by its fix; early: while still true; "
                        "late: after it)")
    for h in ev.HEADERS:
        table.add_column(h, justify="left" if h in ("policy", "case", "rule") else "right")
    previous = None
    for row in ev.table_rows(evaluation):
        if row[0] and previous is not None and row[0] != previous:
            table.add_section()
        previous = row[0] or previous
        table.add_row(*row)
    out.print(table)


def _replace_block(text: str, path: Path, begin: str, end: str, body: str) -> str:
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {begin} ... {end} block to write the table into")
    return pattern.sub(lambda _: f"{begin}\n\n{body}\n\n{end}", text, count=1)


def update_doc(path: Path, evaluation: ev.Evaluation | None, drift: Sequence[ed.DriftEvaluation] = ()) -> None:
    """Replace the blocks between the markers of ``path`` with the tables
    (the drift block only when a drift case was replayed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if evaluation is not None:
        text = _replace_block(text, path, BEGIN, END,
                              f"{ev.markdown(evaluation)}\n{ev.summary(evaluation, timing=False)}")
    if drift:
        text = _replace_block(text, path, DRIFT_BEGIN, DRIFT_END, "\n".join(
            f"{ed.drift_markdown(d)}\n{ed.drift_summary(d, timing=False)}\n\n"
            + "".join(f"- {line}\n" for line in ed.drift_targets_text(d).splitlines()) for d in drift).rstrip("\n"))
    path.write_text(text, encoding="utf-8")


def _names(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def custom_settings(rules: str | None, path_kinds: str | None, slug_mentions: str | None,
                    line_context: int | None, touch: str | None = None) -> dict[str, object]:
    """The ``policy`` verb's options as :func:`findings_ledger.set_match_policy` settings (only those given)."""
    out: dict[str, object] = {}
    if rules is not None:
        out["enabled_rules"] = _names(rules)
    if path_kinds is not None:
        out["path_supersede_kinds"] = _names(path_kinds)
    if slug_mentions is not None:
        out["slug_mention_resolves"] = slug_mentions == "on"
    if line_context is not None:
        out["line_context"] = line_context
    if touch is not None:
        out["touch"] = touch
    return out


def _custom_name(settings: dict[str, object]) -> str:
    parts = []
    for key, value in settings.items():
        shown = ",".join(str(v) for v in value) if isinstance(value, list) else (
            ("on" if value else "off") if isinstance(value, bool) else str(value))
        parts.append(f"{key.replace('enabled_rules', 'rules').replace('path_supersede_kinds', 'path-kinds')}"
                     f"={shown}")
    return "custom: " + " ".join(parts)


def _split_corpus(corpus: Path, repos: tuple[str, ...]) -> tuple[list[ev.Corpus], list[Path]]:
    """The JSON corpora and the drift-case directories of CORPUS (a corpus
    directory, or one drift case), filtered by ``--repo``."""
    if not corpus.exists():
        raise ev.CorpusError(f"corpus directory {str(corpus)!r} does not exist")
    if corpus.is_dir() and ed.is_drift_case(corpus):
        return [], [corpus]
    drift = ed.find_drift_cases(corpus)
    wanted = set(repos)
    if wanted:
        drift = [d for d in drift if d.name in wanted or d.name.replace("__", "/") in wanted]
        wanted -= {d.name for d in drift} | {d.name.replace("__", "/") for d in drift}
        if not wanted:
            return [], drift
    has_json = corpus.is_dir() and any(p.is_file() for p in corpus.glob("*.json"))
    if not has_json and drift and not wanted:
        return [], drift
    return ev.load_corpus(corpus, tuple(sorted(wanted))), drift


@click.command("evaluate")
@dsn_option
@click.argument("corpus", type=click.Path(path_type=Path))
@click.option("--repo", "repos", multiple=True,
              help="only this repository (owner/name or its file or folder name; repeatable)")
@click.option("--policy", "policy_names", multiple=True,
              help="only this policy (by name; repeatable; default: all)")
@click.option("--rules", default=None, help="replay a custom policy: evidence rules, as the policy verb takes them")
@click.option("--path-kinds", default=None, help="replay a custom policy: kinds the path rule supersedes ('*', '')")
@click.option("--slug-mentions", type=click.Choice(["on", "off"]), default=None,
              help="replay a custom policy: slug mentions resolve")
@click.option("--line-context", type=int, default=None, help="replay a custom policy: lines around a line anchor")
@click.option("--touch", type=click.Choice(["retire", "recheck", "flag"]), default=None,
              help="replay a custom policy: what a resolving touch does to findings without a check")
@click.option("--jobs", type=click.IntRange(1, 16), default=2, show_default=True,
              help="policies replayed at once, each on its own connection (the same figures)")
@click.option("--isolated", is_flag=True, default=False,
              help="replay every finding alone in its own scope (slower; the same figures)")
@click.option("--markdown", is_flag=True, default=False, help="print the table as Markdown")
@click.option("--write-doc", "doc", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help=f"also write the Markdown tables into this file, between {BEGIN} and {END} "
                   f"(and {DRIFT_BEGIN} and {DRIFT_END} for a drift case)")
@click.option("--check", is_flag=True, default=False,
              help="exit 1 when the default policy retires any finding of the JSON corpora at a commit "
                   "other than its fix")
@user_errors
def evaluate_command(dsn: str | None, corpus: Path, repos: tuple[str, ...], policy_names: tuple[str, ...],
                     rules: str | None, path_kinds: str | None, slug_mentions: str | None,
                     line_context: int | None, touch: str | None, jobs: int, isolated: bool, markdown: bool,
                     doc: Path | None, check: bool) -> None:
    """Replay the labelled corpus in CORPUS (a directory of owner__name.json
    files and drift-case folders, or one drift-case folder, see
    docs/decision-quality.md) through the schema, in a scratch database, and
    print per rule and per policy the findings retired at their fix, early
    (while still true), late, never, precision and recall. The policy
    verb's options (--rules, --path-kinds, --slug-mentions, --line-context)
    replay one custom policy with those settings instead of the named ones
    (with --policy: besides them)."""
    corpora, drift_dirs = _split_corpus(corpus, repos)
    settings = custom_settings(rules, path_kinds, slug_mentions, line_context, touch)
    policies: tuple[ev.Policy, ...] = ev.POLICIES
    drift_policies: tuple[ed.DriftPolicy, ...] = ed.DRIFT_POLICIES
    if policy_names or settings:
        known = {p.name: p for p in ev.POLICIES}
        known_drift = {p.name: p for p in ed.DRIFT_POLICIES}
        unknown = [n for n in policy_names if n not in known and n not in known_drift]
        if unknown:
            raise ValueError(f"unknown policy {unknown[0]!r}; the policies are: "
                             f"{', '.join([*known, *known_drift])}")
        policies = tuple(known[n] for n in policy_names if n in known)
        drift_policies = tuple(known_drift[n] for n in policy_names if n in known_drift)
        if settings:
            policies += (ev.Policy(_custom_name(settings), dict(settings)),)
            drift_policies += (ed.DriftPolicy(_custom_name(settings), dict(settings)),)
    cases = [ed.load_drift_case(d) for d in drift_dirs] if drift_policies else []
    if not policies:
        corpora = []
    progress = progress_bar()
    drift_results: list[ed.DriftEvaluation] = []
    result: ev.Evaluation | None = None
    with scratch_database(resolve_dsn(dsn)) as target, psycopg.connect(target, autocommit=True) as conn, progress:
        total = (ev.total_merges(corpora, policies) if corpora else 0) + sum(
            ed.total_merges(c, drift_policies) for c in cases)
        task = progress.add_task("replaying merges", total=total)
        advance = lambda n: progress.advance(task, n)  # noqa: E731
        from concurrent.futures import ThreadPoolExecutor

        def drift_all() -> list[ed.DriftEvaluation]:
            with psycopg.connect(target, autocommit=True) as c:
                return [ed.evaluate_drift(c, case, drift_policies, progress=advance, jobs=jobs,
                                          connect=lambda: psycopg.connect(target, autocommit=True))
                        for case in cases]

        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(drift_all) if cases else None  # the clone and the git reading overlap the replay
            if corpora:
                result = ev.evaluate(conn, corpora, policies, isolated=isolated, progress=advance,
                                     connect=lambda: psycopg.connect(target, autocommit=True),
                                     jobs=jobs)
            if pending is not None:
                drift_results = pending.result()
    if result is not None:
        if markdown:
            click.echo(ev.markdown(result), nl=False)
        else:
            print_table(result, console)
        click.echo(ev.summary(result))
    for d in drift_results:
        if markdown:
            click.echo(ed.drift_markdown(d), nl=False)
        else:
            print_drift_table(d, console)
        click.echo(ed.drift_summary(d))
        click.echo(ed.drift_targets_text(d), nl=False)
    wrong: list[ev.Outcome] = []
    if result is not None:
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
        update_doc(doc, result, drift_results)
    if check and wrong:
        raise ValueError(f"the {policies[0].name!r} policy retired {len(wrong)} finding(s) at a commit other than "
                         "its fix")


def print_drift_table(d: ed.DriftEvaluation, out: Console) -> None:
    table = Table(title=f"Drift case {d.case.name}: when each finding left the prompts")
    for h in ed.DRIFT_HEADERS:
        table.add_column(h, justify="left" if h == "policy" else "right")
    for row in ed.drift_rows(d):
        table.add_row(*row)
    out.print(table)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [evaluate_command]
