"""Writers answer the ledger's file-state requests from git.

A merge that touches a path a finding's check (``resolved_when``) names
opens a file-state request (``ledger.file_state_request``; pending ones in
``ledger.pending_file_state``): the paths whose state at that commit the
check needs. :func:`answer_pending` reads them from a git repository and
answers with ``ledger.record_file_states(merge_id, states)``, in the
caller's transaction (``replay-git``, ``evaluate`` and
:func:`findings_ledger.record_merge` with ``repo=`` call it right after the
merge, so the merge and its answer commit together).

What each path's state is (:func:`read_file_states`), at commit ``sha``:

* a file path: its text (``git cat-file --batch``, ``<sha>:<path>``), or
  null when the path does not exist at that commit, is not a file (a
  directory, a submodule), is over :data:`MAX_TEXT_BYTES`, contains a NUL
  byte or is not valid UTF-8: a binary or oversized file is *absent of
  text*, so ``file_contains`` on it does not hold and ``file_lacks`` does;
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
``findings_ledger.filestates``) instead of raising, so the merges recorded
in the same transaction are kept.
"""

from __future__ import annotations

import json
import logging
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

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


def read_file_states(repo: str | Path, sha: str, paths: Iterable[str]) -> dict[str, str | None]:
    """The state of each of ``paths`` at commit ``sha`` of ``repo`` (see the
    module docstring). Raises ``ValueError`` when git fails."""
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
    if files:
        request = "".join(f"{sha}:{p}\n" for p in files).encode("utf-8")
        proc = subprocess.run(["git", "-C", str(r), "cat-file", "--batch"], input=request, capture_output=True)
        if proc.returncode != 0:
            raise ValueError(f"git cat-file --batch in {r} failed: {proc.stderr.decode(errors='replace').strip()}")
        data = proc.stdout
        pos = 0
        for p in files:
            end = data.index(b"\n", pos)
            header = data[pos:end].decode("utf-8", errors="replace").split(" ")
            pos = end + 1
            if header[-1] in ("missing", "ambiguous") or len(header) != 3:
                out[p] = None
                continue
            size = int(header[2])
            blob = data[pos:pos + size]
            pos += size + 1
            out[p] = _text(blob) if header[1] == "blob" else None
    return {p: out[p] for p in wanted}


def _text(blob: bytes) -> str | None:
    if len(blob) > MAX_TEXT_BYTES or b"\0" in blob:
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

    answered: list[int] = field(default_factory=list)
    refused: list[RefusedAnswer] = field(default_factory=list)


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
        states = read_file_states(r, sha, paths)
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
