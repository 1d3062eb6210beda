"""The ``checks`` verbs: what a reviewer's checks (``resolved_when``) say
before they are imported.

``findings-ledger checks lint REVIEW --repo R --at SHA``
    lint each check of drift review REVIEW on the tree of SHA in git
    repository R (:mod:`findings_ledger.checks`): one line per problem,
    ``REVIEW: <level>: <JSON path>: <problem>``, then a summary; exit 1 when
    there is an error.
"""

from __future__ import annotations

from pathlib import Path

import click

from .. import checks
from .helpers import connect, dsn_option, user_errors


@click.group("checks")
def checks_group() -> None:
    """Lint reviewers' checks (resolved_when) before an import."""


@checks_group.command("lint")
@dsn_option
@click.argument("review", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--repo", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="the git repository the review is about")
@click.option("--at", "sha", required=True, help="the commit whose tree the review describes (a sha, HEAD, a tag)")
@user_errors
def lint_command(dsn: str | None, review: Path, repo: Path, sha: str) -> None:
    """Lint each check of drift review REVIEW on the tree of commit --at in
    --repo: errors for a check that holds already there (it would retire
    its finding at the first touch) or that the ledger refuses (a pattern in
    another regular-expression dialect without an ARE form); warnings for a
    pattern the ledger rewrites (\\b -> \\y) and for a file_contains that a
    stub of the name it mentions would satisfy. Nothing is written."""
    checks.read_review(review)   # a bad review is one error line before any connection
    checks.resolve_commit(repo, sha)
    with connect(dsn) as conn:
        commit, count, problems = checks.lint_review(conn, review, repo, sha)
    for p in problems:
        click.echo(f"{review.name}: {p.level}: {p.where}: {p.problem}")
    errors = sum(p.level == "error" for p in problems)
    warnings = len(problems) - errors
    click.echo(f"{review.name}: {count} check(s) at {commit[:12]}: {errors} error(s), {warnings} warning(s)")
    if errors:
        raise ValueError(f"{review.name}: {errors} check(s) would be wrong at {commit[:12]}")


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [checks_group]
