"""Read merges from a git repository, and replay them into the ledger.

:func:`read_merges` lists the commits of a revision range on the
first-parent line (the commits that *landed* on the branch, merge commits
included, their changes taken against the first parent), oldest first, with
their full messages, the paths they touched, which of those they added and
deleted, and the line ranges they changed (git's ``-U0`` hunks):

* one ``git log --no-walk --stdin -z --raw -p -U0`` stream over the commits
  ``git rev-list --first-parent`` lists: read as it arrives, so a long
  history never sits in memory as one blob (:func:`read_merge_batches` groups
  it into batches for bulk writers);
* renames count both sides (old and new path) as touched; a rename is its
  old path deleted and its new path added; ``renames=False`` (``git
  --no-renames``) reports it as a deletion plus an addition, which needs no
  file contents (rename detection reads blobs; a partial clone may lack them);
* a directory that comes into existence (its first file added) is in
  ``added`` and ``paths`` as ``dir/``; one that goes (its last file
  deleted) is in ``deleted`` as ``dir/``; every ancestor directory that
  changes existence counts (:class:`_Directories`: one ``git ls-tree`` of
  the range's first parent, then counts of files per directory);
* a submodule (a gitlink, mode 160000) added, removed or bumped touches
  its path and its directory (``vendor/lib`` and ``vendor/lib/``), so a
  finding naming ``vendor/lib/`` is touched; which files inside changed is
  the submodule's history, not read (a finding on ``vendor/lib/x.py`` is
  not touched); ``vendor/lib/`` is in neither ``added`` nor ``deleted``;
* paths are read with ``-z``, so spaces, quotes, backslashes and non-ASCII
  names come through exactly (no C-style quoting);
* ``hunks`` maps a path to its ``[old_start, old_count, new_start,
  new_count]`` ranges (git's ``@@ -a,b +c,d @@``), keyed by the path the old
  line numbers refer to (a rename's *old* path). A path changed without line
  changes (a pure rename, a mode change) maps to ``[]``; a path whose lines
  git cannot show (binary, type change) is left out, so the ledger applies
  the file-level rule to it;
* a commit whose diff cannot be read (a partial or damaged clone lacking a
  blob, the boundary commit of a shallow clone) is still returned, with its
  message and, where git can tell them without the missing objects, its
  paths, added and deleted, but ``hunks=None`` and the reason in
  ``diff_error``: never a crash;
* a path that is not valid UTF-8 comes back with its bytes as lone
  surrogates (Python's ``surrogateescape``): :func:`sanitised` leaves it
  out of the merge and names it escaped (``bad\\xff.txt``) in the
  merge's replay note, as it does a name the ledger refuses.

:func:`replay` records them in order through :func:`findings_ledger.record_merges`,
one statement and one transaction per batch, reading the next batch from
git in a background thread while it records the current one (:func:`ahead`);
:func:`preview_replay` shows what a replay would decide and rolls it back.
"""

from __future__ import annotations

import logging
import queue
import re
import subprocess
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import islice
from pathlib import Path
from typing import IO, Any, TypeVar

import psycopg

from . import queries
from .api import set_hygiene_mode
from .checks import RefusedAnswer, answer_pending, normalized_paths
from .errors import checked_arguments
from .merges import record_merges
from .models import MergeResult

#: Merges per batch (:func:`read_merge_batches`, :func:`replay`).
BATCH_SIZE = 200
#: At most this many merges in :func:`replay`'s first batch: recording starts
#: once they are read (the pipelined replay's wall time is the reading of the
#: first batch plus the recording of all).
FIRST_BATCH = 100

Hunk = tuple[int, int, int, int]

_MARK = b"\x1e\x1eFL-COMMIT\x00"
_FORMAT = "%x1e%x1eFL-COMMIT%x00%H%x00%P%x00%cI%x00%B%x00"
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DIFF = b"diff --git "
_NULL_OID = re.compile(r"^0+$")
# what git prints when an object it needs is not in the repository (a
# partial clone without its promisor, a damaged object store)
_UNREADABLE = re.compile(
    r"unable to read|could not read|missing blob|bad object|could not fetch|promisor|"
    r"is corrupt|loose object .* is corrupt|packed object .* is corrupt|unable to parse object",
    re.I,
)


@dataclass(frozen=True)
class GitMerge:
    """One first-parent commit: ``sha`` (40 hex), ``parents`` (shas),
    ``committed_at`` (committer date), ``message`` (full, as written),
    ``paths`` (touched paths in git's order, both sides of renames),
    ``added`` and ``deleted`` (subsets of ``paths``), ``hunks`` (see the
    module docstring; None when the diff could not be read) and
    ``diff_error`` (why not, else None)."""

    sha: str
    parents: tuple[str, ...]
    committed_at: datetime
    message: str
    paths: tuple[str, ...]
    added: tuple[str, ...] | None = ()
    deleted: tuple[str, ...] | None = ()
    hunks: Mapping[str, Sequence[Hunk]] | None = field(default=None, hash=False)
    diff_error: str | None = None

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def subject(self) -> str:
        """The message's first line."""
        return self.message.split("\n", 1)[0]

    def hunks_json(self) -> dict[str, list[list[int]]] | None:
        """``hunks`` as the ledger stores them (``ledger.merge.hunks``)."""
        if self.hunks is None:
            return None
        return {path: [list(h) for h in hs] for path, hs in self.hunks.items()}


def _git(repo: Path, args: list[str], stdin: bytes | None = None) -> bytes:
    proc = subprocess.run(_argv(repo, args), input=stdin, capture_output=True)
    if proc.returncode != 0:
        raise ValueError(f"git {' '.join(args[:2])} in {repo} failed: {_one_line(proc.stderr)}")
    return proc.stdout


def _argv(repo: Path, args: list[str]) -> list[str]:
    return ["git", "-C", str(repo), "-c", "core.quotepath=off", *args]


def _one_line(raw: bytes) -> str:
    return "; ".join(line.strip() for line in raw.decode(errors="replace").splitlines() if line.strip())


def _log_args(*, patch: bool, renames: bool) -> list[str]:
    """``git log`` over the shas on stdin, in that order, each diffed against
    its first parent; settings a user's configuration could change are
    given explicitly (the hunks are git's defaults: Myers, indent heuristic,
    no context, no merged hunks)."""
    args = [
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--root",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-show-signature",
        "--encoding=UTF-8",
        "--no-abbrev",
        "-z",
        "--raw",
        "--diff-merges=first-parent",
        f"--format={_FORMAT}",
        "-M" if renames else "--no-renames",
    ]
    if patch:
        args += ["-p", "-U0", "--inter-hunk-context=0", "--diff-algorithm=myers", "--indent-heuristic"]
    return args


def list_commits(repo: str | Path, rev_range: str = "HEAD", since: str | None = None) -> list[str]:
    """The shas of ``rev_range`` (revisions separated by white space, e.g.
    ``v1.0..main`` or ``main ^v1.0``) on the first-parent line, oldest
    first (``git rev-list --first-parent --reverse``). Raises ``ValueError``
    when a word of ``rev_range`` starts with ``-`` (git would read it as an
    option), when ``since`` reads as now or later (git's date parser takes a
    date it cannot read for now, and no commit would be selected), and when
    git fails (not a repository, unknown revision)."""
    words = rev_range.split()
    bad = next((w for w in words if w.startswith("-")), None)
    if bad is not None or not words:
        raise ValueError(f"invalid revision range {rev_range!r}: give revisions such as HEAD, v1.0..main or "
                         f"'main ^v1.0'" + (f" ({bad!r} would be read as a git option)" if bad else ""))
    args = ["rev-list", "--first-parent", "--reverse"]
    if since is not None:
        args.append(f"--since={_check_since(Path(repo), since)}")
    args += [*words, "--"]
    return _git(Path(repo), args).decode("ascii").split()


def _check_since(repo: Path, since: str) -> str:
    """``since`` when git reads it as a moment in the past. git's date parser
    never refuses: a date it cannot read is taken for now (``git rev-parse
    --since=<since>`` says ``--max-age=<now>``), which would select no
    commit, so that (and a future date) is refused with ``ValueError``."""
    before = int(time.time())  # git's now is a whole second, read after this one
    out = _git(repo, ["rev-parse", f"--since={since}"]).decode("ascii", errors="replace").strip()
    moment = re.fullmatch(r"--max-age=([0-9]+)", out)
    if not since.strip() or moment is None or int(moment.group(1)) >= before:
        raise ValueError(f"invalid --since {since!r}: git reads it as now or later, so no commit would be "
                         "selected; give a past date such as 2026-01-01, '2 weeks ago' or 2.weeks")
    return since


def read_merges(
    repo: str | Path,
    rev_range: str = "HEAD",
    since: str | None = None,
    *,
    renames: bool = True,
) -> GitHistory:
    """Commits of ``rev_range`` (e.g. ``HEAD``, ``v1.0..main``) on the
    first-parent line, oldest first; ``since`` is passed to ``git rev-list
    --since`` (``2026-01-01``, ``2.weeks``); ``renames=False`` turns rename
    detection off (``--no-renames``). The commits are listed at once (so
    ``len()`` is known) and read as the result is iterated. Raises
    ``ValueError`` when git fails (not a repository, unknown revision); a
    path that is not UTF-8 holds its bytes as lone surrogates; a commit whose diff cannot be read comes back with
    ``hunks=None`` and ``diff_error`` set (see the module docstring)."""
    path = Path(repo)
    return GitHistory(path, list_commits(path, rev_range, since), renames)


@dataclass(frozen=True)
class GitHistory:
    """The first-parent commits :func:`read_merges` lists: ``shas`` oldest
    first; iterating reads them from git (again on each iteration)."""

    repo: Path
    shas: list[str]
    renames: bool = True

    def __len__(self) -> int:
        return len(self.shas)

    def __iter__(self) -> Iterator[GitMerge]:
        return _Directories(self.repo).follow(_Reader(self.repo, self.shas, self.renames).merges())


def _ancestors(path: str) -> Iterator[str]:
    """The directories above ``path``, each ending in ``/``: ``a/b/c.py`` -> ``a/``, ``a/b/``."""
    at = path.find("/")
    while at >= 0:
        yield path[: at + 1]
        at = path.find("/", at + 1)


class _Directories:
    """How many files each directory holds along the first-parent line, to
    tell when a directory comes into existence (its first file added) or
    goes (its last file deleted).

    The counts start from the tree of the first commit's first parent
    (``git ls-tree -r --name-only -z``, once) and then follow each commit's
    added and deleted paths, so a long history costs one tree listing plus
    the depth of each changed path. When the next commit's first parent is
    not the commit just followed (a range that is not one chain) or a
    commit's added/deleted are unknown, the counts are read again from the
    tree of the next commit's first parent."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.files: dict[str, int] = {}
        self.at: str | None = None  # the commit whose tree the counts describe ("" = empty tree)

    def _reset(self, sha: str) -> None:
        self.files = {}
        if sha:
            out = _git(self.repo, ["ls-tree", "-r", "--name-only", "-z", sha])
            for raw in out.split(b"\0"):
                if raw:
                    for d in _ancestors(raw.decode("utf-8", errors="surrogateescape")):
                        self.files[d] = self.files.get(d, 0) + 1
        self.at = sha

    def follow(self, merges: Iterable[GitMerge]) -> Iterator[GitMerge]:
        for m in merges:
            yield self._apply(m)

    def _apply(self, m: GitMerge) -> GitMerge:
        if m.added is None or m.deleted is None:
            self.at = None
            return m
        parent = m.parents[0] if m.parents else ""
        if self.at != parent:
            self._reset(parent)
        before: dict[str, int] = {}
        for path, step in [*((p, 1) for p in m.added), *((p, -1) for p in m.deleted)]:
            for d in _ancestors(path):
                n = self.files.get(d, 0)
                before.setdefault(d, n)
                self.files[d] = n + step
        self.at = m.sha
        came = [d for d, n in before.items() if n == 0 and self.files[d] > 0]
        went = [d for d, n in before.items() if n > 0 and self.files[d] <= 0]
        for d in went:
            del self.files[d]
        if not came and not went:
            return m
        return replace(m, paths=tuple(dict.fromkeys([*m.paths, *came])), added=(*m.added, *came),
                       deleted=(*m.deleted, *went))


class _Reader:
    """The stream over ``shas`` and its recovery from unreadable objects.

    A first ``git log -p`` runs over every commit. When git stops on an
    object it cannot read, the repository is asked once which objects it
    lacks (``rev-list --objects --missing=print``: fetches nothing) and the
    raw tree diffs (which read no blob) tell which commits need one; those
    are returned without their patch and the stream restarts after the last
    commit known complete. A commit that still fails alone is returned
    without its patch too. Every restart returns at least one more commit.
    """

    def __init__(self, repo: Path, shas: list[str], renames: bool) -> None:
        self.repo, self.shas, self.renames = repo, shas, renames
        self.shallow = _shallow_boundary(repo) & set(shas)
        self.unreadable: dict[str, str] = {
            sha: "the boundary commit of a shallow clone: its parent is not in the repository"
            for sha in self.shallow
        }
        self.raw: dict[str, _Raw] = {}
        self.probed = False

    def merges(self) -> Iterator[GitMerge]:
        pos = 0
        while pos < len(self.shas):
            while pos < len(self.shas) and self.shas[pos] in self.unreadable:
                yield self._without_patch(self.shas[pos])
                pos += 1
            run = [s for s in self.shas[pos:] if s not in self.unreadable]
            if not run:
                continue
            got = 0
            failure: _Failure | None = None
            for item in _read_patch(self.repo, run, self.renames):
                if isinstance(item, _Failure):
                    failure = item
                    break
                while self.shas[pos] != item.sha:  # unreadable commits in between
                    yield self._without_patch(self.shas[pos])
                    pos += 1
                yield item
                pos += 1
                got += 1
            if failure is None:
                continue
            if not self.probed and self._probe(self.shas[pos:], failure.message):
                continue
            if got == 0:
                self.unreadable[run[0]] = f"the diff cannot be read: {_short(failure.message)}"

    def _probe(self, rest: list[str], message: str) -> bool:
        """Mark the commits of ``rest`` that need a missing object; True when any was found."""
        self.probed = True
        missing = _missing_objects(self.repo, rest)
        if not missing:
            return False
        self.raw.update((r.merge.sha, r) for r in _read_raw(self.repo, rest))
        found = False
        for sha in rest:
            lacking = sorted(self.raw[sha].oids & missing)
            if lacking and sha not in self.unreadable:
                more = f" and {len(lacking) - 1} more" if len(lacking) > 1 else ""
                self.unreadable[sha] = f"the diff needs object {lacking[0]}{more}, missing from the repository"
                found = True
        return found

    def _without_patch(self, sha: str) -> GitMerge:
        if sha not in self.raw:
            self.raw.update((r.merge.sha, r) for r in _read_raw(self.repo, [sha]))
        m = self.raw[sha].merge
        reason = self.unreadable[sha]
        if sha in self.shallow:
            # diffed against nothing, every file would look added: paths unknown
            return replace(m, paths=(), added=None, deleted=None, hunks=None, diff_error=reason)
        return replace(m, hunks=None, diff_error=reason)


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shallow_boundary(repo: Path) -> set[str]:
    """The shas whose parents a shallow clone lacks (its ``shallow`` file)."""
    try:
        out = _git(repo, ["rev-parse", "--git-path", "shallow"]).decode().strip()
    except ValueError:
        return set()
    shallow = Path(out) if Path(out).is_absolute() else repo / out
    try:
        return set(shallow.read_text(encoding="ascii").split())
    except OSError:
        return set()


def _missing_objects(repo: Path, shas: list[str]) -> set[str]:
    """Object ids reachable from ``shas`` that the repository lacks."""
    out = _git(repo, ["rev-list", "--objects", "--missing=print", "--stdin"], stdin=_lines(shas))
    return {line[1:].split()[0] for line in out.decode().splitlines() if line.startswith("?")}


def _lines(shas: Sequence[str]) -> bytes:
    return "".join(f"{s}\n" for s in shas).encode("ascii")


@dataclass(frozen=True)
class _Failure:
    message: str


@dataclass(frozen=True)
class _Raw:
    merge: GitMerge
    oids: frozenset[str]


def _read_raw(repo: Path, shas: list[str]) -> Iterator[_Raw]:
    """Commits without their patch and without rename detection: reads no
    blob, only trees. Each with the blob ids its diff would need."""
    if not shas:
        return
    out = _git(repo, _log_args(patch=False, renames=False), stdin=_lines(shas))
    for chunk in _split(out):
        header, entries, _ = _parse_chunk(chunk)
        yield _Raw(_build(header, entries, None), frozenset(o for e in entries for o in e.oids))


def _split(out: bytes) -> Iterator[bytes]:
    return iter(out.split(_MARK)[1:])


def _read_patch(repo: Path, shas: list[str], renames: bool) -> Iterator[GitMerge | _Failure]:
    """Stream ``git log -p -U0`` over ``shas``; yields each commit once its
    successor's header (or the end of a successful run) shows it complete,
    then a :class:`_Failure` if git stopped on an unreadable object (the
    commit it was printing is not yielded: it may be cut short)."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(_argv(repo, _log_args(patch=True, renames=renames)), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err)
        assert proc.stdin is not None and proc.stdout is not None
        # git reads every revision from stdin before it writes anything
        proc.stdin.write(_lines(shas))
        proc.stdin.close()
        pending: bytes | None = None
        try:
            for chunk in _chunks(proc.stdout):
                if pending is not None:
                    yield _patched(pending)
                pending = chunk
        finally:
            proc.stdout.close()
            rc = proc.wait()
        err.seek(0)
        message = _one_line(err.read())
    if rc == 0:
        if pending is not None:
            yield _patched(pending)
        return
    if not _UNREADABLE.search(message):
        raise ValueError(f"git log in {repo} failed: {message}")
    yield _Failure(message)


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """The bytes of each commit of the stream (the text between markers),
    read in blocks; each byte is searched once."""
    buf = bytearray()
    start = 0
    seen = False
    while block := stream.read(1 << 16):
        buf += block
        while (at := buf.find(_MARK, start)) >= 0:
            if seen:
                yield bytes(buf[:at])
            seen = True
            del buf[: at + len(_MARK)]
            start = 0
        start = max(0, len(buf) - len(_MARK) + 1)
    if seen:
        yield bytes(buf)


@dataclass(frozen=True)
class _Entry:
    status: str
    paths: tuple[str, ...]  # (path,) or (old, new)
    oids: tuple[str, ...]  # the blobs its diff reads
    gitlink: bool = False  # a submodule (mode 160000) on either side


def _parse_chunk(chunk: bytes) -> tuple[list[bytes], list[_Entry], bytes]:
    """Split one commit's bytes into its header fields, raw entries and patch text."""
    fields = chunk.split(b"\0", 4)
    if len(fields) < 5:
        raise ValueError(f"unexpected git log output: {chunk[:80]!r}")
    header, rest = fields[:4], fields[4].lstrip(b"\0")
    if rest.startswith(b"\n"):
        rest = rest[1:]
    entries: list[_Entry] = []
    while rest.startswith(b":"):
        meta_raw, rest = rest.split(b"\0", 1)
        meta = meta_raw[1:].decode("ascii").split(" ")
        status = meta[4]
        width = 2 if status[0] in "RC" else 1
        *raw_paths, rest = rest.split(b"\0", width)
        # a name that is not UTF-8 keeps its bytes as lone surrogates; sanitised() leaves it out
        paths = [raw_path.decode("utf-8", errors="surrogateescape") for raw_path in raw_paths]
        oids = tuple(o for o, mode in zip(meta[2:4], meta[0:2], strict=True)
                     if not _NULL_OID.match(o) and mode != "160000")
        entries.append(_Entry(status, tuple(paths), oids, "160000" in meta[0:2]))
    return header, entries, rest.lstrip(b"\0")


@dataclass
class _Section:
    """One ``diff --git`` section of a patch."""

    readable: bool = True
    hunks: list[Hunk] = field(default_factory=list)
    deleted_mode: bool = False
    new_mode: bool = False


def _sections(patch: bytes) -> list[_Section]:
    out: list[_Section] = []
    in_hunks = False
    for line in patch.split(b"\n"):
        if line.startswith(_DIFF):
            out.append(_Section())
            in_hunks = False
        elif not out:
            continue
        elif line.startswith(b"@@ -"):
            m = _HUNK.match(line)
            if m:
                in_hunks = True
                a, b, c, d = m.groups()
                out[-1].hunks.append((int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d)))
        elif in_hunks:
            continue  # a changed line (+, -, or "\\ No newline at end of file")
        elif line.startswith((b"Binary files ", b"GIT binary patch")):
            out[-1].readable = False
        elif line.startswith(b"deleted file mode"):
            out[-1].deleted_mode = True
        elif line.startswith(b"new file mode"):
            out[-1].new_mode = True
    return out


def _patched(chunk: bytes) -> GitMerge:
    """One commit of the ``-p`` stream: the raw entries give the exact paths,
    the patch sections (in the same order) their hunks."""
    header, entries, patch = _parse_chunk(chunk)
    sections = _sections(patch)
    hunks: dict[str, list[Hunk]] = {}
    i = 0
    for e in entries:
        if i >= len(sections):
            return _build(header, entries, None, "the patch does not line up with the changed paths")
        s = sections[i]
        i += 1
        if e.status == "T":
            # shown as a deletion and an addition: the old lines are not
            # comparable to the new ones, so the file-level rule applies
            if s.deleted_mode and i < len(sections) and sections[i].new_mode:
                i += 1
            continue
        if s.readable:
            hunks.setdefault(e.paths[0], []).extend(s.hunks)
    if i != len(sections):
        return _build(header, entries, None, "the patch does not line up with the changed paths")
    return _build(header, entries, hunks)


def _build(header: list[bytes], entries: list[_Entry], hunks: dict[str, list[Hunk]] | None,
           diff_error: str | None = None) -> GitMerge:
    sha, parents, date, body = (h.decode("utf-8", errors="replace") for h in header)
    paths: list[str] = []
    added: list[str] = []
    deleted: list[str] = []
    for e in entries:
        paths.extend(e.paths)
        if e.gitlink:  # a submodule's files changed: its directory is touched
            paths.extend(f"{p}/" for p in e.paths)
        if e.status[0] in "RD":
            deleted.append(e.paths[0])
        if e.status[0] in "RCA":
            added.append(e.paths[-1])
    return GitMerge(
        sha=sha,
        parents=tuple(parents.split()),
        committed_at=datetime.fromisoformat(date),
        message=body.rstrip("\n"),
        paths=tuple(dict.fromkeys(paths)),
        added=tuple(dict.fromkeys(added)),
        deleted=tuple(dict.fromkeys(deleted)),
        hunks=hunks,
        diff_error=diff_error,
    )


def batches(merges: Iterable[GitMerge], size: int = BATCH_SIZE,
            first: int | None = None) -> Generator[list[GitMerge], None, None]:
    """``merges`` in lists of at most ``size`` (the first of at most ``first``
    when given), in order. ``ValueError`` for a size below 1."""
    if size < 1 or (first is not None and first < 1):
        raise ValueError(f"batches of at least 1 merge, not size={size} first={first}")
    it = iter(merges)
    n = size if first is None else first
    while batch := list(islice(it, n)):
        yield batch
        n = size


_T = TypeVar("_T")
_END = object()


def ahead(items: Iterable[_T], depth: int = 2) -> Generator[_T, None, None]:
    """``items`` in order, produced by a background thread at most ``depth``
    items ahead of the consumer: while the caller records one batch, the
    next is read from git (its ``git log -p`` process and the parsing of
    its output). An exception the producer raises is raised here after the
    items it produced before it, so the caller sees what a plain loop
    would: every item before the failure, then the same exception. When
    the caller stops early (an exception of its own, ``close()``), the
    producer stops after the item it is producing and closes ``items``
    (which ends a ``git log`` it was reading)."""
    out: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        it = iter(items)
        try:
            for item in it:
                if not put((item, None)):
                    return
            put((_END, None))
        except BaseException as exc:  # handed to the consumer, raised there
            put((_END, exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="findings-ledger-git-reader", daemon=True)
    thread.start()
    try:
        while True:
            item, exc = out.get()
            if exc is not None:
                raise exc
            if item is _END:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def read_merge_batches(
    repo: str | Path,
    rev_range: str = "HEAD",
    since: str | None = None,
    *,
    renames: bool = True,
    size: int = BATCH_SIZE,
) -> Iterator[list[GitMerge]]:
    """:func:`read_merges` in batches of at most ``size`` merges, oldest first."""
    return batches(read_merges(repo, rev_range, since, renames=renames), size)


#: the longest merge.message the ledger accepts (LD004 beyond), and the
#: trailer a replay appends to a commit it had to change to record it
MESSAGE_LIMIT = 262_144
#: the most hunks the ledger accepts for one path and for one merge (LD004 beyond)
HUNKS_PER_PATH = 10_000
HUNKS_PER_MERGE = 100_000
NOTE_TRAILER = "Ledger-Replay-Note: "
_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())  # the application decides where warnings go (the CLI prints its own line)


def _path_refused(path: str) -> str | None:
    """Why ``ledger.normalize_path`` would refuse ``path`` (LD001), for the
    refusals a real file name can meet: a control or format character
    (bidirectional overrides, zero-width characters), more than 4096
    characters; and a name that is not UTF-8 (its bytes kept as lone
    surrogates), which no text column can hold. None when the ledger accepts it (the ledger decides in the
    end: this only keeps one such name from stopping a whole replay)."""
    if any("\udc80" <= c <= "\udcff" for c in path):
        return "not valid UTF-8"
    if len(path) > 4096:
        return "longer than 4096 characters"
    if any(unicodedata.category(c) in ("Cc", "Cf") or c in "\u2028\u2029" for c in path):
        return "a control or format character"
    return None


def _escaped(path: str) -> str:
    """``path`` in printable ASCII, unambiguously: a byte that is not UTF-8
    as ``\\xff``, a character beyond printable ASCII as ``\\u202e`` (or
    ``\\U0001f600``), a backslash doubled."""
    out = []
    for c in path:
        if "\udc80" <= c <= "\udcff":
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif c == "\\":
            out.append("\\\\")
        elif " " <= c <= "~":
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
    return "".join(out)


def sanitised(m: GitMerge) -> GitMerge:
    """``m`` as the ledger can record it: a path the ledger refuses (LD001)
    is left out of paths, added, deleted and hunks, the hunks of a path
    (or of the merge) beyond the ledger's bounds are left out (LD004: the
    file-level rule applies), and a message longer than
    :data:`MESSAGE_LIMIT` characters (LD004) is cut; each adds to one
    trailer line ``Ledger-Replay-Note: ...`` to the message saying what was
    changed, the audit of the change (:func:`replay_note` reads it). The
    same commit always gives the same merge, so a rerun is a redelivery."""
    notes = []
    dropped = [p for p in m.paths if _path_refused(p)]
    if dropped:
        reasons = sorted({r for r in (_path_refused(p) for p in dropped) if r})
        notes.append(f"{len(dropped)} path(s) left out, not accepted by the ledger (LD001: {', '.join(reasons)}): "
                     + ", ".join(_escaped(p) for p in dropped)[:1000])
        keep = set(m.paths) - set(dropped)
        m = replace(m, paths=tuple(p for p in m.paths if p in keep),
                    added=None if m.added is None else tuple(p for p in m.added if p in keep),
                    deleted=None if m.deleted is None else tuple(p for p in m.deleted if p in keep),
                    hunks=None if m.hunks is None else {p: h for p, h in m.hunks.items() if p in keep})
    if m.hunks is not None:
        crowded = sorted(p for p, h in m.hunks.items() if len(h) > HUNKS_PER_PATH)
        if crowded:
            notes.append(f"the hunks of {len(crowded)} path(s) left out (LD004: more than {HUNKS_PER_PATH} each; "
                         "the file-level rule applies): " + ", ".join(crowded)[:1000])
            m = replace(m, hunks={p: h for p, h in m.hunks.items() if p not in crowded})
    if m.hunks is not None and sum(len(h) for h in m.hunks.values()) > HUNKS_PER_MERGE:
        notes.append(f"all hunks left out (LD004: more than {HUNKS_PER_MERGE} in one merge; "
                     "the file-level rule applies)")
        m = replace(m, hunks=None)
    message = m.message
    if len(message) + (len(notes[0]) + 40 if notes else 0) > MESSAGE_LIMIT:
        notes.append(f"message cut from {len(message)} characters (LD004: at most {MESSAGE_LIMIT})")
    if not notes:
        return m
    trailer = "\n\n" + NOTE_TRAILER + "; ".join(notes)
    return replace(m, message=message[:MESSAGE_LIMIT - len(trailer)] + trailer)


def consistent(m: GitMerge, normalized: Mapping[str, str]) -> GitMerge:
    """``m`` with added and deleted that do not contradict each other once
    normalised as the ledger does (``normalized``: a name to its ledger
    path), which the ledger refuses (LD003). git never lists one name as
    both added and deleted, but two names can be one ledger path: a rename
    of ``docs/cafe\\u0301.md`` (NFD, as macOS writes it) to ``docs/café.md``,
    of ``a\\b.py`` to ``a/b.py``, of ``a.py `` to ``a.py``. That path
    exists before and after the merge: it is changed, neither added nor
    deleted (it stays in ``paths``); a deleted directory holding an added
    path still exists, and is not deleted; an added directory holding a
    deleted path existed before, and is not added."""
    if not m.added or not m.deleted:
        return m
    added = {normalized.get(p, p) for p in m.added}
    gone = {normalized.get(p, p) for p in m.deleted}
    both = added & gone
    stays = both | (gone & {d for a in added for d in _ancestors(a)})
    was = both | (added & {d for g in gone for d in _ancestors(g)})
    if not stays and not was:
        return m
    return replace(m, added=tuple(p for p in m.added if normalized.get(p, p) not in was),
                   deleted=tuple(p for p in m.deleted if normalized.get(p, p) not in stays))


def replay_note(m: GitMerge) -> str | None:
    """What :func:`sanitised` changed in ``m`` to record it, else None."""
    head, sep, note = m.message.rpartition("\n\n" + NOTE_TRAILER)
    return note if sep and "\n" not in note else None


def recorded_shas(conn: psycopg.Connection[Any], scope: str) -> set[str]:
    """The commit shas ``scope`` holds (one read of ``ledger.merge`` by its
    ``(scope, commit_sha)`` key): what a replay resumed after a lost
    connection skips."""
    return {row[0] for row in conn.execute(queries.RECORDED_SHAS, {"scope": scope})}


def replay(
    conn: psycopg.Connection[Any],
    scope: str,
    merges: Iterable[GitMerge],
    on_merge: Callable[[GitMerge, MergeResult], None] | None = None,
    *,
    batch_size: int = BATCH_SIZE,
    repo: str | Path | None = None,
    on_refused: Callable[[RefusedAnswer], None] | None = None,
    pipeline: bool = True,
    first_batch: int = FIRST_BATCH,
) -> list[MergeResult]:
    """Record ``merges`` in order into ``scope`` with their added, deleted
    and hunks; returns one :class:`MergeResult` per merge. Each batch of
    ``batch_size`` merges (the first of at most ``first_batch``, so that
    recording starts early) is one :func:`findings_ledger.record_merges`
    statement (one multi-row INSERT, the same decisions as one merge at a
    time) in its own transaction (a savepoint inside the caller's), so an
    interrupted replay keeps the batches it finished. A
    merge already recorded (same scope and sha) has no second effect.
    ``on_merge`` is called for each merge once its batch is recorded (the
    CLI's progress bar), with the merge as recorded: a commit with a path
    the ledger refuses or a message over its limit is recorded changed as
    :func:`sanitised` says (a WARNING on logger
    ``findings_ledger.gitlog`` names the commit; :func:`replay_note` gives
    the change), so one odd commit does not stop the replay; two names of
    one commit that are one ledger path (an NFD name renamed to its NFC
    form) are recorded as that path changed (:func:`consistent`, one
    ``ledger.normalize_path`` query per batch). With ``repo`` (the git repository the merges come
    from), the file-state requests the batch opened, and any the scope
    still has pending from an earlier run, are answered from git in the
    batch's transaction (:func:`findings_ledger.checks.answer_pending`),
    each merge's answer in a savepoint: an answer the ledger refuses is
    rolled back alone and passed to ``on_refused`` (and logged), its
    requests left pending, and the batch's merges are kept. When answers
    were taken for merges of the batch, the batch's results are read again
    (a redelivery of the same rows returns every audit row of each merge),
    so each result's decisions include what the answers decided (rule
    ``check``) and ``recorded`` stays what the first write said.

    With ``pipeline`` (the default) the next batch is read (``git log -p``
    and its parsing, when ``merges`` is a :class:`GitHistory`) in a
    background thread while the current one is recorded (:func:`ahead`),
    so the wall time approaches the larger of reading and recording; the
    rows, their order and the errors are those of ``pipeline=False``: a
    read that fails raises its exception after the batches before it are
    recorded, and nothing of the batch it was reading is written."""
    results = []

    def refused(answers: Any) -> None:
        for r in answers.refused:
            if on_refused is not None:
                on_refused(r)

    read = batches((sanitised(m) for m in merges), batch_size, first=min(batch_size, first_batch))
    source = ahead(read) if pipeline else read
    try:
        for batch in source:
            normalized = normalized_paths(conn, (p for m in batch for p in (*(m.added or ()), *(m.deleted or ()))
                                                 if m.added and m.deleted))
            batch = [consistent(m, normalized) for m in batch]
            for m in batch:
                if note := replay_note(m):
                    _log.warning("commit %s recorded changed: %s", m.sha, note)
            rows = [{"commit_sha": m.sha, "paths": m.paths, "message": m.message, "merged_at": m.committed_at,
                     "added": m.added, "deleted": m.deleted, "hunks": m.hunks_json()} for m in batch]
            with conn.transaction():
                done = record_merges(conn, scope, rows)
                if repo is not None:
                    answers = answer_pending(conn, scope, repo)
                    refused(answers)
                    if set(answers.answered) & {r.merge_id for r in done}:
                        again = record_merges(conn, scope, rows)
                        done = [replace(first, decisions=later.decisions)
                                for first, later in zip(done, again, strict=True)]
            results.extend(done)
            if on_merge is not None:
                for m, res in zip(batch, done, strict=True):
                    on_merge(m, res)
    finally:
        source.close()  # a pipelined read stops with the replay (its git process ends)
    if repo is not None and not results:
        with conn.transaction():
            refused(answer_pending(conn, scope, repo))
    return results


@checked_arguments
def preview_replay(
    conn: psycopg.Connection[Any], scope: str, merges: Iterable[GitMerge]
) -> list[tuple[GitMerge, MergeResult]]:
    """What replaying ``merges`` into ``scope`` would decide, changing nothing.

    Runs inside one transaction (a savepoint when the caller already has
    one): the scope is created if needed and forced to hygiene mode ``dry``,
    the merges are recorded in order, their decisions collected, and
    everything is rolled back. Resolutions therefore read
    ``would_supersede``; a merge already recorded in the scope comes back with
    ``recorded=False`` and its original decisions. As in dry mode, a finding
    resolved by an earlier merge of the preview is still active for later
    ones. Raises what :func:`findings_ledger.record_merge` raises.
    """
    merges = list(merges)
    out: list[tuple[GitMerge, MergeResult]] = []
    with conn.transaction() as tx:
        set_hygiene_mode(conn, scope, "dry", create=True)
        results = replay(conn, scope, merges)
        out = list(zip(merges, results, strict=True))
        raise psycopg.Rollback(tx)
    return out
