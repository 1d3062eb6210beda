"""replay-git pipelined (the next batch read from git in a background
thread while the current one is recorded) records exactly what the serial
replay records: the same merges in the same order, the same decisions, and
on a failure mid-stream the same exception with nothing of the failing
batch written."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.gitrepo import git, write
from support.touch_policy import retire_drift_on_touch

from findings_ledger import gitlog
from findings_ledger.errors import ValueInvalid

FILES = ["src/a.py", "src/b.py", "docs/guide.md", "lib/c.py"]
COMMITS = 14


def _lines(n: int, tag: str) -> str:
    return "".join(f"{tag} {i}\n" for i in range(1, n + 1))


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """COMMITS commits on main: files created, edited at different lines,
    one renamed, one deleted, one side branch merged with --no-ff."""
    repo = tmp_path_factory.mktemp("pipelined") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for f in FILES:
        write(repo, f, _lines(40, f))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start", date="2026-06-01T10:00:00+00:00")
    for i in range(1, COMMITS):
        date = f"2026-06-{1 + i:02d}T10:00:00+00:00"
        if i == 5:
            git(repo, "mv", "lib/c.py", "lib/renamed.py")
        elif i == 9:
            git(repo, "rm", "-q", "docs/guide.md")
        elif i == 11:
            git(repo, "checkout", "-q", "-b", "side")
            write(repo, "side.py", "side\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-q", "-m", "side work", date=date)
            git(repo, "checkout", "-q", "main")
            git(repo, "merge", "-q", "--no-ff", "-m", "merge side", "side", date=date)
            continue
        else:
            f = FILES[i % 2]
            text = (repo / f).read_text().splitlines(keepends=True)
            text[(i * 3) % 40] = f"edited by commit {i}\n"
            (repo / f).write_text("".join(text))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {i}\n\nBody of commit {i}.", date=date)
    return repo


def _findings(conn: psycopg.Connection[Any], scope: str) -> None:
    """Line-anchored drift findings on every file, some on lines the history edits."""
    retire_drift_on_touch(conn, scope)
    for k, f in enumerate(FILES):
        for line in (4, 10, 22, 31):
            conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths, observed_at) "
                         "VALUES (%s, %s, 'drift', %s, '2026-05-01T00:00:00Z')",
                         (scope, f"note {k}.{line}", [f"{f}:{line}"]))


def _recorded(conn: psycopg.Connection[Any], scope: str) -> tuple[list[Any], list[Any], list[Any]]:
    """What the scope holds, without ids: its merges in order, the audit
    of each merge in order, and every finding's state."""
    merges = conn.execute("SELECT commit_sha, message, paths, added, deleted, hunks::text FROM ledger.merge "
                          "WHERE scope = %s ORDER BY id", (scope,)).fetchall()
    audit = conn.execute(
        "SELECT m.commit_sha, f.title, s.action, s.rule, s.evidence, s.detail::text FROM ledger.supersession s "
        "JOIN ledger.merge m ON m.id = s.merge_id JOIN ledger.finding f ON f.id = s.finding_id "
        "WHERE s.scope = %s ORDER BY s.id", (scope,)).fetchall()
    findings = conn.execute(
        "SELECT f.title, f.superseded_at IS NOT NULL, f.supersede_rule, m.commit_sha, f.paths, f.anchors::text "
        "FROM ledger.finding f LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id "
        "WHERE f.scope = %s ORDER BY f.title", (scope,)).fetchall()
    return merges, audit, findings


def test_the_pipelined_replay_records_what_the_serial_one_does(ledger_conn: psycopg.Connection,
                                                               history: Path) -> None:
    for scope in ("serial", "piped"):
        _findings(ledger_conn, scope)
    serial = gitlog.replay(ledger_conn, "serial", gitlog.read_merges(history), batch_size=3, pipeline=False)
    piped = gitlog.replay(ledger_conn, "piped", gitlog.read_merges(history), batch_size=3)
    assert len(serial) == len(piped) == len(gitlog.read_merges(history)) == COMMITS
    assert [(r.recorded, len(r.superseded)) for r in serial] == [(r.recorded, len(r.superseded)) for r in piped]
    assert sum(len(r.superseded) for r in piped) > 0  # the history retires findings: decisions were compared
    assert _recorded(ledger_conn, "serial") == _recorded(ledger_conn, "piped")


class Broken(Exception):
    pass


def _failing(history: Path, after: int) -> Iterator[gitlog.GitMerge]:
    """The real history read from git, then a read that fails after ``after`` merges."""
    for i, m in enumerate(gitlog.read_merges(history)):
        if i == after:
            raise ValueError(f"git log in {history} failed: fatal: reading commit {m.sha} failed")
        yield m


def test_a_read_failing_mid_stream_leaves_the_same_rows_and_the_same_error(ledger_conn: psycopg.Connection,
                                                                           history: Path) -> None:
    messages = {}
    for scope, pipeline in (("serial", False), ("piped", True)):
        _findings(ledger_conn, scope)
        with pytest.raises(ValueError) as exc:
            gitlog.replay(ledger_conn, scope, _failing(history, 7), batch_size=3, pipeline=pipeline)
        messages[scope] = str(exc.value)
    assert messages["serial"] == messages["piped"] and "reading commit" in messages["piped"]
    serial, piped = _recorded(ledger_conn, "serial"), _recorded(ledger_conn, "piped")
    assert serial == piped
    # the two whole batches before the failing one, nothing of the batch it was reading
    shas = [m.sha for m in gitlog.read_merges(history)]
    assert [row[0] for row in piped[0]] == shas[:6]


def test_a_batch_the_ledger_refuses_stops_both_at_the_same_merge(ledger_conn: psycopg.Connection,
                                                                 history: Path) -> None:
    """A recording error mid-stream (a merge the ledger refuses: a hunk
    outside any path it touched) raises the same error in both modes, after
    the same batches, and stops the background reader (its git process
    ends with the replay)."""
    def refused() -> Iterator[gitlog.GitMerge]:
        for i, m in enumerate(gitlog.read_merges(history)):
            yield m if i != 4 else gitlog.GitMerge(**{**m.__dict__, "hunks": {"nowhere.py": [(0, 0, 1, 1)]}})

    errors = {}
    for scope, pipeline in (("serial", False), ("piped", True)):
        _findings(ledger_conn, scope)
        with pytest.raises(ValueInvalid) as exc:
            gitlog.replay(ledger_conn, scope, refused(), batch_size=3, pipeline=pipeline)
        errors[scope] = (type(exc.value), exc.value.sqlstate, str(exc.value))
        assert not [t for t in threading.enumerate() if t.name == "findings-ledger-git-reader"]
    assert "'nowhere.py' is not one of merge.paths" in errors["piped"][2]
    assert errors["serial"] == errors["piped"]
    serial, piped = _recorded(ledger_conn, "serial"), _recorded(ledger_conn, "piped")
    assert serial == piped and len(piped[0]) == 3


def test_ahead_stops_its_reader_when_the_consumer_stops() -> None:
    produced: list[int] = []
    closed: list[bool] = []

    def items() -> Iterator[int]:
        try:
            for i in range(1000):
                produced.append(i)
                yield i
        finally:
            closed.append(True)

    it = gitlog.ahead(items(), depth=2)
    assert [next(it), next(it)] == [0, 1]
    it.close()  # joins the reader
    assert closed == [True] and len(produced) <= 6
