"""Read merges from a git repository, and replay them into the ledger.

:func:`read_merges` lists the commits of a revision range on the
first-parent line (the commits that *landed* on the branch, merge commits
included, their changes taken against the first parent), oldest first, with
their full messages and the paths they touched:

* renames count both sides (old and new path) as touched, deletions count;
* paths are read with ``-z``, so spaces, quotes, backslashes and non-ASCII
  names come through exactly (no C-style quoting);
* a path that is not valid UTF-8 raises ``ValueError`` naming the commit.

:func:`replay` records them in order through :func:`findings_ledger.record_merge`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg

from .api import record_merge
from .models import MergeResult

_MARK = "\x1e\x1eFL-COMMIT"
_FORMAT = "%x1e%x1eFL-COMMIT%x00%H%x00%P%x00%cI%x00%B%x00"


@dataclass(frozen=True)
class GitMerge:
    """One first-parent commit: ``sha`` (40 hex), ``parents`` (shas),
    ``committed_at`` (committer date), ``message`` (full, as written) and
    ``paths`` (touched paths in git's order, both sides of renames)."""

    sha: str
    parents: tuple[str, ...]
    committed_at: datetime
    message: str
    paths: tuple[str, ...]

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1


def _git(repo: Path, args: list[str]) -> bytes:
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.quotepath=off", *args],
        capture_output=True,
    )
    if proc.returncode != 0:
        raise ValueError(f"git {' '.join(args[:2])} in {repo} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def read_merges(repo: str | Path, rev_range: str = "HEAD", since: str | None = None) -> Iterator[GitMerge]:
    """Commits of ``rev_range`` (e.g. ``HEAD``, ``v1.0..main``) on the
    first-parent line, oldest first; ``since`` is passed to ``git log
    --since`` (``2026-01-01``, ``2.weeks``). Raises ``ValueError`` when git
    fails (not a repository, unknown revision) or a path is not UTF-8."""
    args = [
        "log",
        "--first-parent",
        "--reverse",
        "--no-color",
        "--no-ext-diff",
        "-z",
        "--name-status",
        "-M",
        "--diff-merges=first-parent",
        f"--format={_FORMAT}",
    ]
    if since:
        args.append(f"--since={since}")
    args += [rev_range, "--"]
    raw = _git(Path(repo), args)
    tokens = raw.split(b"\0")
    i = 0
    header: list[bytes] | None = None
    paths: list[str] = []
    while i < len(tokens):
        tok = tokens[i].lstrip(b"\n")
        if tok == _MARK.encode():
            if header is not None:
                yield _build(header, paths)
            header, paths = tokens[i + 1 : i + 5], []
            i += 5
            continue
        if not tok:
            i += 1
            continue
        status = tok.decode("ascii", errors="replace")
        width = 2 if status[0] in "RC" else 1
        for raw_path in tokens[i + 1 : i + 1 + width]:
            try:
                paths.append(raw_path.decode("utf-8"))
            except UnicodeDecodeError as exc:
                sha = header[0].decode() if header else "?"
                raise ValueError(f"commit {sha}: path {raw_path!r} is not valid UTF-8") from exc
        i += 1 + width
    if header is not None:
        yield _build(header, paths)


def _build(header: list[bytes], paths: list[str]) -> GitMerge:
    sha, parents, date, body = (h.decode("utf-8", errors="replace") for h in header)
    return GitMerge(
        sha=sha,
        parents=tuple(parents.split()),
        committed_at=datetime.fromisoformat(date),
        message=body.rstrip("\n"),
        paths=tuple(dict.fromkeys(paths)),
    )


def replay(
    conn: psycopg.Connection[Any],
    scope: str,
    merges: Iterable[GitMerge],
    on_merge: Callable[[GitMerge, MergeResult], None] | None = None,
) -> list[MergeResult]:
    """Record ``merges`` in order into ``scope``; returns one
    :class:`MergeResult` per merge. A merge already recorded (same scope and
    sha) has no second effect. ``on_merge`` is called after each one (the
    CLI's progress bar). Runs in the caller's transaction mode."""
    results = []
    for m in merges:
        res = record_merge(conn, scope, m.sha, m.paths, message=m.message, merged_at=m.committed_at)
        results.append(res)
        if on_merge is not None:
            on_merge(m, res)
    return results
