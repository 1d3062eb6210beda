"""Checks (a finding's ``resolved_when``): answering the file-state
requests merges open (:func:`record_file_states`, :func:`pending_file_states`,
and :func:`answer_pending`, which answers them from git), the
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
   answers a file-state request (:func:`read_file_states`);
3. ``ledger.lint_check(check, states, field)`` reports, with the ledger's
   own evaluation (``ledger._eval_check``): a construct of another dialect
   it rewrites (``warning``), a check that holds already on that tree
   (``error``: it would retire the finding at the first touch), a
   ``file_contains`` part that a stub of a name its pattern mentions would
   satisfy (``warning``; the stubs are listed in docs/checks.md).

The lint writes nothing.

File-state answers from git: a merge that touches a path a finding's check
(``resolved_when``) names opens a file-state request
(``ledger.file_state_request``; pending ones in ``ledger.pending_file_state``):
the paths whose state at that commit the check needs. :func:`answer_pending` reads them from a git repository and
answers with ``ledger.record_file_states(merge_id, states)``, in the
caller's transaction (``replay-git``, ``evaluate`` and
:func:`findings_ledger.record_merge` with ``repo=`` call it right after the
merge, so the merge and its answer commit together).

What each path's state is (:func:`read_file_states`), at commit ``sha``:

* a file path: its text (``git cat-file --batch``, ``<sha>:<path>``; a
  path git holds under another name that the ledger normalises to it, an
  NFD name, a backslash, a trailing space, is read under that name), or
  null when the path does not exist at that commit, is not a file (a
  directory, a submodule), is over :data:`MAX_TEXT_BYTES`, contains a NUL
  byte, is not valid UTF-8 or is a Git LFS pointer (:data:`LFS_POINTER`:
  the file's content is in LFS storage, which is not read, ``git lfs``
  or not): a binary, oversized or LFS file is *absent of text*, so
  ``file_contains`` on it does not hold and ``file_lacks`` does;
* a directory path (ending in ``/``): the path of one file under it
  (``git ls-tree -r --name-only``), a non-null value meaning "at least one
  file exists under it", or null when none does.

A request whose commit the repository does not have stays pending (another
writer may answer it); a crash between the merge and its answer leaves it
pending too, and the next :func:`answer_pending` on the scope answers it.

Each merge's answer is one savepoint (a nested ``conn.transaction()``): an
answer the ledger refuses (``FileStateConflict``, LD104: another writer
answered a path with other bytes; a pattern that runs into
``statement_timeout``; any other error that leaves the connection usable)
is rolled back alone, its requests stay pending, and :func:`answer_pending`
reports it (:class:`RefusedAnswer`, one WARNING line on the logger
``findings_ledger.checks``) instead of raising, so the merges recorded
in the same transaction are kept.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import queries
from .errors import LedgerError, checked_arguments, translate
from .models import CheckProblem, ClaimedRecheck, FileStateOutcome, PendingFileState, RecheckRequest

VALIDATE = "SELECT v, ledger._check_paths(v) FROM ledger.validate_check(%(check)s, %(field)s) AS v"
LINT = "SELECT level, part, problem FROM ledger.lint_check(%(check)s, %(states)s, %(field)s)"

_log = logging.getLogger(__name__)

#: The largest file text sent (``ledger.record_file_states`` takes at most 1 MiB).
MAX_TEXT_BYTES = 1 << 20

PENDING = """
SELECT merge_id, commit_sha, array_agg(DISTINCT p ORDER BY p)
  FROM ledger.pending_file_state, unnest(paths) AS p
 WHERE scope = %(scope)s AND (%(merge_ids)s::bigint[] IS NULL OR merge_id = ANY(%(merge_ids)s::bigint[]))
 GROUP BY merge_id, commit_sha
 ORDER BY merge_id
"""

ANSWER = "SELECT finding_id, outcome, part FROM ledger.record_file_states(%s, %s::jsonb)"

#: each of ``paths`` with its form in the ledger (``ledger.normalize_path``)
NORMALIZE_PATHS = "SELECT p, ledger.normalize_path(p, 'path') FROM unnest(%(paths)s::text[]) AS p"


def _has_commit(repo: Path, sha: str) -> bool:
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{sha}^{{commit}}"], capture_output=True)
    return proc.returncode == 0


def check_repository(repo: str | Path, sha: str) -> None:
    """Raise ``ValueError`` (one line naming ``repo`` and ``sha``) unless ``repo`` is a git
    repository holding commit ``sha``: a file-state request of a commit it lacks could never
    be answered from it."""
    r = Path(repo)
    proc = subprocess.run(["git", "-C", str(r), "rev-parse", "--git-dir"], capture_output=True, text=True)
    if proc.returncode != 0:
        reason = "; ".join(line.strip() for line in proc.stderr.splitlines() if line.strip())
        raise ValueError(f"repo {str(r)!r} is not a git repository ({reason}): give the repository holding "
                         f"commit {sha}, or no repo")
    if not _has_commit(r, sha):
        raise ValueError(f"repo {str(r)!r} does not hold commit {sha}: give the repository holding it "
                         "(fetched up to the merge), or no repo")


def read_file_states(repo: str | Path, sha: str, paths: Iterable[str],
                     normalize: Callable[[Iterable[str]], Mapping[str, str]] | None = None,
                     ) -> dict[str, str | None]:
    """The state of each of ``paths`` at commit ``sha`` of ``repo`` (see the
    module docstring). ``paths`` are ledger paths (normalised); with
    ``normalize`` (names to their ledger paths, :func:`normalized_paths`) a
    path git does not hold under that exact name is looked up among the
    tree's real names (``git ls-tree -r -z``) whose ledger path it is: a name
    macOS wrote in NFD (``docs/cafe\\u0301.md`` for ``docs/café.md``), a
    backslash (``win\\a.py`` for ``win/a.py``), a trailing space. Without
    it only the exact name is asked. Raises ``ValueError`` when git fails."""
    r = Path(repo)
    wanted = list(dict.fromkeys(paths))
    out: dict[str, str | None] = {}
    files = [p for p in wanted if not p.endswith("/")]
    for d in (p for p in wanted if p.endswith("/")):
        proc = subprocess.run(["git", "-C", str(r), "ls-tree", "-r", "--name-only", "-z", sha, "--", d],
                              capture_output=True)
        if proc.returncode != 0:
            raise ValueError(f"git ls-tree {sha} -- {d} in {r} failed: {proc.stderr.decode(errors='replace').strip()}")
        first = proc.stdout.split(b"\0", 1)[0]
        out[d] = first.decode("utf-8", errors="replace") if first else None
    names = {p: p.encode("utf-8") for p in files}
    missing = _cat_files(r, sha, names, out)
    if normalize is not None and (missing or any(out[d] is None for d in wanted if d.endswith("/"))):
        real = _real_names(r, sha, missing, [d for d in wanted if d.endswith("/") and out[d] is None], normalize)
        for d in (d for d in wanted if d.endswith("/")):
            if d in real:
                out[d] = real[d].decode("utf-8", errors="replace")
        _cat_files(r, sha, {p: real[p] for p in missing if p in real}, out)
    return {p: out[p] for p in wanted}


def _cat_files(repo: Path, sha: str, names: Mapping[str, bytes], out: dict[str, str | None]) -> list[str]:
    """Answer each path of ``names`` (path -> the name asked of git) into
    ``out`` with one ``git cat-file --batch``; returns the paths git does not
    have under that name."""
    missing: list[str] = []
    if not names:
        return missing
    asked = [(p, n) for p, n in names.items() if b"\n" not in n]
    for p in (p for p, n in names.items() if b"\n" in n):
        out[p] = None
    request = b"".join(sha.encode("ascii") + b":" + n + b"\n" for _, n in asked)
    proc = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=request, capture_output=True)
    if proc.returncode != 0:
        raise ValueError(f"git cat-file --batch in {repo} failed: {proc.stderr.decode(errors='replace').strip()}")
    data = proc.stdout
    pos = 0
    for p, _ in asked:
        end = data.index(b"\n", pos)
        header = data[pos:end].decode("utf-8", errors="replace").split(" ")
        pos = end + 1
        if header[-1] in ("missing", "ambiguous") or len(header) != 3:
            out[p] = None
            if header[-1] == "missing":
                missing.append(p)
            continue
        size = int(header[2])
        blob = data[pos:pos + size]
        pos += size + 1
        out[p] = _text(blob) if header[1] == "blob" else None
    return missing


_WHITE = re.compile(r"\s+")
_LINE_SUFFIX = re.compile(r"(:[0-9]+)+$")


def _loose(name: str) -> str:
    """A key two names share whenever the ledger normalises them to one
    path (its last segment, NFC, without white space or ``:line``
    suffixes): it only narrows the names the ledger is asked about."""
    flat = _LINE_SUFFIX.sub("", _WHITE.sub("", unicodedata.normalize("NFC", name).replace("\\", "/")))
    return flat.rstrip("/").rsplit("/", 1)[-1]


def _real_names(repo: Path, sha: str, files: list[str], dirs: list[str],
                normalize: Callable[[Iterable[str]], Mapping[str, str]]) -> dict[str, bytes]:
    """For each of ``files`` and ``dirs`` (ledger paths git does not hold
    under that exact name), the tree name at ``sha`` whose ledger path it
    is (for a directory: a file under it), the first in git's order.
    One ``git ls-tree -r -z`` and one ``normalize`` call over the names that
    could match; a name that is not UTF-8 is never one."""
    out = _git_bytes(repo, ["ls-tree", "-r", "--name-only", "-z", sha])
    tree: list[tuple[bytes, str]] = []
    for raw in out.split(b"\0"):
        if raw:
            try:
                tree.append((raw, raw.decode("utf-8")))
            except UnicodeDecodeError:
                continue
    keys = {_loose(p) for p in files}
    dir_keys = {_loose(d) for d in dirs}
    candidates = [(raw, name) for raw, name in tree
                  if _loose(name) in keys or (dirs and any(_loose(a) in dir_keys for a in _parents(name)))]
    if not candidates:
        return {}
    ledger = normalize([name for _, name in candidates])
    found: dict[str, bytes] = {}
    want_files, want_dirs = set(files), set(dirs)
    for raw, name in candidates:
        path = ledger.get(name, name)
        if path in want_files:
            found.setdefault(path, raw)
        for d in want_dirs:
            if path.startswith(d):
                found.setdefault(d, raw)
    return found


def _parents(name: str) -> Iterator[str]:
    """The directories above ``name`` (git's ``/`` or a backslash)."""
    parts = re.split(r"[/\\]", name)
    for i in range(1, len(parts)):
        yield "/".join(parts[:i])


def _git_bytes(repo: Path, args: list[str]) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if proc.returncode != 0:
        raise ValueError(f"git {' '.join(args[:2])} in {repo} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


#: how a Git LFS pointer file starts (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"


def _is_lfs_pointer(blob: bytes) -> bool:
    """A Git LFS pointer (the spec bounds it to 1024 bytes): the file's
    content lives in LFS storage, not in git, so its text is unknown."""
    return len(blob) < 1024 and blob.startswith(LFS_POINTER)


def normalized_paths(conn: psycopg.Connection[Any], names: Iterable[str]) -> dict[str, str]:
    """Each of ``names`` mapped to the path the ledger stores for it
    (``ledger.normalize_path``: NFC, backslashes as ``/``, surrounding white
    space trimmed, ...), in one query on ``conn`` (in a savepoint). A name the
    ledger refuses (LD001) makes the whole answer the names themselves: the
    ledger then names the refused path where it is written."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    try:
        with conn.transaction():
            rows = conn.execute(NORMALIZE_PATHS, {"paths": wanted}).fetchall()
    except psycopg.Error as exc:
        if conn.broken or conn.closed or exc.sqlstate is None or not exc.sqlstate.startswith("LD"):
            raise
        return {p: p for p in wanted}
    return {p: n for p, n in rows}


def _text(blob: bytes) -> str | None:
    if len(blob) > MAX_TEXT_BYTES or b"\0" in blob or _is_lfs_pointer(blob):
        return None
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


@dataclass(frozen=True)
class RefusedAnswer:
    """An answer the ledger refused (rolled back to its savepoint): the
    merge's requests stay pending. ``sqlstate`` is the error's SQLSTATE
    (``LD104``, ``57014`` for a statement timeout, ...), ``message`` its
    first line."""

    merge_id: int
    commit_sha: str
    sqlstate: str | None
    message: str

    def warning(self) -> str:
        """The one line a command prints for it."""
        return (f"warning: file states of commit {self.commit_sha[:12]} (merge {self.merge_id}) refused "
                f"({self.sqlstate}), its requests left pending: {self.message}")


@dataclass(frozen=True)
class AnsweredFileStates:
    """What :func:`answer_pending` did: the merges whose answers the ledger
    took (``answered``, merge ids in merge order) and the answers it refused."""

    answered: list[int] = dataclass_field(default_factory=list)
    refused: list[RefusedAnswer] = dataclass_field(default_factory=list)


def answer_pending(conn: psycopg.Connection[Any], scope: str, repo: str | Path,
                   merge_ids: Iterable[int] | None = None) -> AnsweredFileStates:
    """Answer the pending file-state requests of ``scope`` (of ``merge_ids``
    only, when given) whose commits ``repo`` has, in merge order, with
    ``ledger.record_file_states`` on ``conn`` (the caller's transaction),
    each merge's answer in a savepoint of its own: a refused answer is
    rolled back alone, logged as one WARNING and returned in
    ``refused``, its requests left pending. An error that breaks the
    connection is raised. Returns what was answered and refused."""
    ids = None if merge_ids is None else list(merge_ids)
    rows = conn.execute(PENDING, {"scope": scope, "merge_ids": ids}).fetchall()
    answered: list[int] = []
    refused: list[RefusedAnswer] = []
    r = Path(repo)
    for merge_id, sha, paths in rows:
        if not _has_commit(r, sha):
            continue
        states = read_file_states(r, sha, paths, lambda names: normalized_paths(conn, names))
        try:
            with conn.transaction():
                conn.execute(ANSWER, (merge_id, json.dumps(states))).fetchall()
        except psycopg.Error as exc:
            if conn.broken or conn.closed or exc.sqlstate is None or exc.sqlstate.startswith("08"):
                raise
            first = (str(exc).splitlines() or [""])[0]
            refusal = RefusedAnswer(merge_id, sha, exc.sqlstate, first)
            _log.warning("%s", refusal.warning())
            refused.append(refusal)
            continue
        answered.append(merge_id)
    return AnsweredFileStates(answered, refused)


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
        states = read_file_states(Path(repo), commit, row[1],
                                             lambda names: normalized_paths(conn, names))
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
