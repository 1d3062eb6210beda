"""Lint a reviewer's checks before they are imported
(``findings-ledger checks lint REVIEW --repo R --at SHA``).

For each ``resolved_when`` of a drift review (the importer's format, see
:mod:`findings_ledger.importers`), on the tree of commit ``SHA`` of git
repository ``R``:

1. the ledger validates it (``ledger.validate_check``, what every write
   runs) and names the paths it reads (``ledger._check_paths``), in one
   statement: a check it refuses (a pattern in another regular-expression
   dialect without an ARE form, LD105; one that does not compile, LD003;
   ...) is an ``error`` carrying the ledger's message;
2. the state of those paths at ``SHA`` is read from git as a writer
   answers a file-state request (:func:`findings_ledger.filestates.read_file_states`);
3. ``ledger.lint_check(check, states, field)`` reports, with the ledger's
   own evaluation (``ledger._eval_check``): a construct of another dialect
   it rewrites (``warning``), a check that holds already on that tree
   (``error``: it would retire the finding at the first touch), a
   ``file_contains`` part that a stub of a name its pattern mentions would
   satisfy (``warning``; the stubs are listed in docs/checks.md).

Nothing is written.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import psycopg

from . import filestates, formats
from .errors import LedgerError, translate
from .models import CheckProblem

VALIDATE = "SELECT v, ledger._check_paths(v) FROM ledger.validate_check(%(check)s, %(field)s) AS v"
LINT = "SELECT level, part, problem FROM ledger.lint_check(%(check)s, %(states)s, %(field)s)"


def resolve_commit(repo: str | os.PathLike[str], sha: str) -> str:
    """The full id of commit ``sha`` (a sha, an abbreviation, HEAD, a tag) in
    git repository ``repo``. Raises ``ValueError`` naming both when ``repo``
    is not a git repository or has no such commit."""
    if not sha or sha.startswith("-"):
        raise ValueError(f"invalid commit {sha!r}: give a commit id or a revision such as HEAD or v1.0")
    proc = subprocess.run(["git", "-C", os.fspath(repo), "rev-parse", "--verify", "--quiet", "--end-of-options",
                           f"{sha}^{{commit}}"], capture_output=True, text=True)
    if proc.returncode != 0:
        reason = "; ".join(line.strip() for line in proc.stderr.splitlines() if line.strip())
        raise ValueError(f"commit {sha!r} cannot be read in {os.fspath(repo)}: {reason or 'no such commit'}")
    return proc.stdout.strip()


def read_review(path: str | os.PathLike[str]) -> Any:
    """A drift review's JSON. Raises ``ValueError`` naming the file when it
    cannot be read or parsed, or is not ``{"drift_findings": [...]}``."""
    p = Path(path)
    try:
        document = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p.name} is not a drift review: {' '.join(str(exc).split())}") from None
    if not isinstance(document, dict) or not isinstance(document.get("drift_findings"), list):
        raise ValueError(f'{p.name} is not a drift review: expected an object {{"drift_findings": [...]}}')
    return document


def _refused(field: str, exc: LedgerError) -> CheckProblem:
    """The ledger's refusal of the check at ``field`` as a problem: the part
    its message names (``invalid <field>.<part>: <why>``) and the rest."""
    message, prefix = str(exc), f"invalid {field}"
    if message.startswith(prefix):
        part, _, why = message[len(prefix):].partition(": ")
        return CheckProblem(field, part.lstrip("."), "error", f"{why} [{exc.sqlstate}]")
    return CheckProblem(field, "", "error", f"{message} [{exc.sqlstate}]")


def lint_review(conn: psycopg.Connection[Any], review: str | os.PathLike[str], repo: str | os.PathLike[str],
                sha: str) -> tuple[str, int, list[CheckProblem]]:
    """Lint every check of drift review ``review`` on the tree of ``sha`` in
    ``repo`` (see the module docstring): (the full commit id, the number of
    checks, the problems in document order). Raises ``ValueError`` for a
    review that cannot be read, a path that is not a git repository or an
    unknown commit."""
    document = read_review(review)
    commit = resolve_commit(repo, sha)
    checks = formats.checks("drift-review", document)
    problems: list[CheckProblem] = []
    for field, check in checks:
        params = {"check": json.dumps(check), "field": field}
        try:
            with translate(), conn.cursor() as cur:
                cur.execute(VALIDATE, params)
                row = cur.fetchone()
        except LedgerError as exc:
            problems.append(_refused(field, exc))
            continue
        assert row is not None
        states = filestates.read_file_states(Path(repo), commit, row[1],
                                             lambda names: filestates.normalized_paths(conn, names))
        with translate(), conn.cursor() as cur:
            cur.execute(LINT, {**params, "states": json.dumps(states)})
            problems.extend(CheckProblem(field, part, level, problem) for level, part, problem in cur.fetchall())
    return commit, len(checks), problems
