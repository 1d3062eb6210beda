"""Checks (a finding's ``resolved_when``): answering the file-state
requests merges open (:func:`record_file_states`, :func:`pending_file_states`;
answered from git by :func:`findings_ledger.filestates.answer_pending`), the
recheck requests a verifier claims and answers (:func:`claim_rechecks`,
:func:`answer_recheck`), and the lint of a reviewer's checks before they
are imported (:func:`lint_review`, ``findings-ledger checks lint REVIEW
--repo R --at SHA``).

The calls are a thin wrapper over ``sql/checks/`` with the conventions of
:mod:`findings_ledger.api` (the caller's connection, one statement per
call, nothing committed here, typed errors). The lint reads the review
with :mod:`findings_ledger.formats`, imported on first use: importing this
module does not load the formats.

The lint: for each ``resolved_when`` of a drift review (the importer's format, see
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

The lint writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import filestates, queries
from .errors import LedgerError, checked_arguments, translate
from .models import CheckProblem, ClaimedRecheck, FileStateOutcome, PendingFileState, RecheckRequest

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
    from . import formats  # the review's schema: loaded by the lint only

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


@checked_arguments
def record_file_states(
    conn: psycopg.Connection[Any], merge_id: int, states: Mapping[str, str | None]
) -> list[FileStateOutcome]:
    """Answer the file-state requests merge ``merge_id`` opened
    (``ledger.record_file_states``): ``states`` maps each requested path to
    its text at the merge's commit, or None when it is absent (a directory
    key ``"pkg/"``: any string when at least one file is under it). The
    ledger evaluates each check and settles the findings in merge order: a
    finding retires (rule ``check``) at the first merge whose tree makes its
    check hold. Any order, more than once: the same answer again changes
    nothing. Returns one :class:`FileStateOutcome` per request of the merge.
    Raises ``NotFound`` (LD005: unknown merge), ``ScopeDenied`` (LD401),
    ``ValueInvalid`` (LD003: a path no request asked for, a value not a str
    or None), ``ValueTooLong`` (LD004: a text over 1 MiB),
    ``FileStateConflict`` (LD104); nothing is written on error."""
    with translate(conn), conn.cursor(row_factory=class_row(FileStateOutcome)) as cur:
        cur.execute(queries.RECORD_FILE_STATES, {"merge_id": merge_id, "states": Jsonb(dict(states))})
        return cur.fetchall()


@checked_arguments
def pending_file_states(conn: psycopg.Connection[Any], scope: str | None = None) -> list[PendingFileState]:
    """The file-state requests still waiting for an answer
    (``ledger.pending_file_states``), of ``scope`` or of every visible scope,
    in merge order: read each ``paths`` at ``commit_sha`` and answer with
    :func:`record_file_states`. Raises ``NotFound`` (LD005) for an unknown
    scope."""
    with translate(conn), conn.cursor(row_factory=class_row(PendingFileState)) as cur:
        cur.execute(queries.PENDING_FILE_STATES, {"scope": scope})
        return cur.fetchall()


@checked_arguments
def claim_rechecks(
    conn: psycopg.Connection[Any], scope: str, verifier: str, max: int = 10,  # noqa: A002
    *, lease: timedelta = timedelta(minutes=10),
) -> list[ClaimedRecheck]:
    """Claim up to ``max`` open recheck requests of ``scope`` for
    ``verifier`` (``ledger.claim_rechecks``: SKIP LOCKED, each request to one
    verifier per lease; an expired lease can be claimed again; a moot
    request never), each with the finding's text and the merge's commit and
    subject. Raises ``ValueRequired`` (LD002), ``ValueInvalid`` (LD003: max
    outside 1-1000, a lease not positive or over a day), ``NotFound``
    (LD005: unknown scope), ``ScopeDenied`` (LD401)."""
    with translate(conn), conn.cursor(row_factory=class_row(ClaimedRecheck)) as cur:
        cur.execute(queries.CLAIM_RECHECKS, {"scope": scope, "verifier": verifier, "max": max, "lease": lease})
        return cur.fetchall()


@checked_arguments
def answer_recheck(
    conn: psycopg.Connection[Any], request_id: int, resolved: bool, evidence: str, *, verifier: str
) -> RecheckRequest:
    """Answer a recheck request under ``verifier``'s lease
    (``ledger.answer_recheck``; ``verifier`` is the one the claim named:
    only the lease holder answers). The finding's answers settle in merge
    order: ``resolved=True`` retires the finding with rule ``recheck`` and
    the evidence (audited) at the first merge whose answer is resolved
    (``outcome`` None while an earlier request is unanswered; ``overruled``,
    the finding kept, for a merge before a person's later restore or
    dismissal); False keeps it (audited ``recheck_kept``). A request that
    became moot while claimed keeps the answer and changes nothing. The
    same answer again is a no-op. Raises ``LeaseInvalid`` (LD103: not
    claimed, lease expired, another verifier's), ``NotFound`` (LD005),
    ``ValueRequired`` (LD002), ``ValueTooLong`` (LD004), ``ScopeDenied``
    (LD401); nothing is written on error."""
    params = {"id": request_id, "resolved": resolved, "evidence": evidence, "verifier": verifier}
    with translate(conn), conn.cursor(row_factory=class_row(RecheckRequest)) as cur:
        cur.execute(queries.ANSWER_RECHECK, params)
        row = cur.fetchone()
    assert row is not None
    return row
