"""The git reader (first-parent merges with their exact touched paths) and
replaying a real repository's history into the ledger."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from gitrepo import NON_ASCII, QUOTE, SPACE, build_repo, git

import findings_ledger as fl
from findings_ledger import gitlog


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("gitlog") / "repo"
    return path, build_repo(path)


def test_first_parent_commits_oldest_first(repo: tuple[Path, dict[str, str]]) -> None:
    path, shas = repo
    merges = list(gitlog.read_merges(path))
    assert [m.sha for m in merges] == [shas["add"], shas["rename"], shas["merge"], shas["quote"]]
    assert shas["side1"] not in {m.sha for m in merges}  # side-branch commits are not on the line
    assert [m.is_merge for m in merges] == [False, False, True, False]
    assert merges[2].parents == (shas["rename"], shas["side2"])
    assert merges[0].message == "add\n\nThe first commit."
    assert merges[2].message == "merge feature"
    assert merges[0].committed_at == datetime(2026, 6, 20, 10, tzinfo=timezone.utc)


def test_touched_paths_are_exact(repo: tuple[Path, dict[str, str]]) -> None:
    path, _ = repo
    merges = list(gitlog.read_merges(path))
    assert sorted(merges[0].paths) == sorted(["a.py", "src/old.py", "docs/x.md", SPACE, QUOTE, NON_ASCII])
    # rename: both sides; deletion included
    assert sorted(merges[1].paths) == ["docs/x.md", "src/new.py", "src/old.py"]
    # a --no-ff merge: what the side branch changed, against the first parent
    assert sorted(merges[2].paths) == ["a.py", "feat.py"]
    assert merges[3].paths == (QUOTE,)


def test_range_and_since_select_commits(repo: tuple[Path, dict[str, str]]) -> None:
    path, shas = repo
    assert [m.sha for m in gitlog.read_merges(path, f"{shas['rename']}..HEAD")] == [shas["merge"], shas["quote"]]
    assert [m.sha for m in gitlog.read_merges(path, since="2026-06-22T12:00:00+00:00")] == [
        shas["merge"],
        shas["quote"],
    ]
    assert list(gitlog.read_merges(path, f"HEAD..{shas['quote']}")) == []


def test_git_failures_are_value_errors(repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = repo
    with pytest.raises(ValueError, match="unknown|bad revision|ambiguous"):
        list(gitlog.read_merges(path, "no-such-branch"))
    with pytest.raises(ValueError):
        list(gitlog.read_merges(tmp_path))  # not a repository


def test_a_path_that_is_not_utf8_is_a_value_error(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    fd = os.open(os.fsencode(str(repo)) + b"/bad\xff.txt", os.O_CREAT | os.O_WRONLY)
    os.close(fd)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "latin-1 name")
    with pytest.raises(ValueError, match="not valid UTF-8"):
        list(gitlog.read_merges(repo))


def test_replay_supersedes_by_the_paths_of_each_commit(
    repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    path, shas = repo
    scope = "repo"
    keys = {
        "old-side": ["src/old.py"],  # the rename's old path
        "new-side": ["src/new.py"],  # the rename's new path
        "deleted": ["docs/"],
        "space": ["dir with space/"],
        "quote": [QUOTE],
        "non-ascii": ["naïve/"],
        "side-branch": ["feat.py"],
        "untouched": ["never/touched.py"],
    }
    ids = {}
    for key, paths in keys.items():
        ids[key] = fl.add_finding(ledger_conn, scope, key, paths=paths, kind="drift", finding_key=key).id
    # the first commit touches everything but is replayed as history: start after it
    results = gitlog.replay(ledger_conn, scope, gitlog.read_merges(path, f"{shas['add']}..HEAD"))

    assert [r.recorded for r in results] == [True, True, True]
    superseded = ledger_conn.execute(
        "SELECT f.finding_key, f.superseded_by, m.commit_sha, a.evidence "
        "FROM ledger.finding f JOIN ledger.merge m ON m.id = f.superseded_by_merge_id "
        "JOIN ledger.supersession a ON a.finding_id = f.id ORDER BY f.id"
    ).fetchall()
    assert superseded == [
        ("old-side", shas["rename"], shas["rename"], "src/old.py"),
        ("new-side", shas["rename"], shas["rename"], "src/new.py"),
        ("deleted", shas["rename"], shas["rename"], "docs/x.md"),
        ("quote", shas["quote"], shas["quote"], QUOTE),
        ("side-branch", shas["merge"], shas["merge"], "feat.py"),
    ]
    assert sorted(f.finding_key or "" for f in fl.active_findings(ledger_conn, scope)) == [
        "non-ascii",
        "space",
        "untouched",
    ]
    # the merge rows keep git's data
    row = ledger_conn.execute(
        "SELECT message, merged_at, node_id FROM ledger.merge WHERE commit_sha = %s", (shas["merge"],)
    ).fetchone()
    assert row == ("merge feature", datetime(2026, 6, 23, 10, tzinfo=timezone.utc), None)


def test_replaying_twice_has_no_second_effect(
    repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    path, _ = repo
    fl.add_finding(ledger_conn, "repo", "space", paths=["dir with space/f.md"], kind="drift")
    fl.add_finding(ledger_conn, "repo", "non-ascii", paths=[NON_ASCII], kind="drift")
    first = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(path))
    state = ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall()
    second = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(path))
    assert [r.recorded for r in first] == [True] * 4
    assert [r.recorded for r in second] == [False] * 4
    assert [r.merge_id for r in second] == [r.merge_id for r in first]
    assert ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall() == state
    assert [a.evidence for a in fl.read_audit(ledger_conn, "repo")] == [SPACE, NON_ASCII]
