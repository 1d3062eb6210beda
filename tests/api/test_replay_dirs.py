"""replay-git's directories: ``dir/`` in a merge's ``added`` when the
directory's first file appears, in ``deleted`` when its last file goes (every
ancestor directory that changes existence), read from a real repository, and
what a finding about a directory then does."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from support.gitrepo import git, write
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger import gitlog


def _commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=f"2026-07-{day:02d}T10:00:00+00:00")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def dirs_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("dirs") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    write(repo, "README.md", "hello\n")
    write(repo, "keep/k.py", "k\n")
    shas["root"] = _commit(repo, "root", 1)
    write(repo, "a/b/c.py", "c\n")  # a/ and a/b/ come into existence
    shas["nested"] = _commit(repo, "nested", 2)
    write(repo, "a/d.py", "d\n")  # a/ exists already: nothing new
    write(repo, "keep/k2.py", "k2\n")
    shas["more"] = _commit(repo, "more", 3)
    git(repo, "rm", "-q", "a/b/c.py")  # a/b/ goes, a/ still holds d.py
    shas["drop-b"] = _commit(repo, "drop b", 4)
    (repo / "z").mkdir()
    git(repo, "mv", "a/d.py", "z/d.py")  # a/ goes, z/ comes: a rename
    shas["move"] = _commit(repo, "move a to z", 5)
    git(repo, "rm", "-q", "-r", "z")
    write(repo, "z/y/new.py", "new\n")  # z/ still exists (a new file under it); z/y/ is new
    shas["swap"] = _commit(repo, "swap inside z", 6)
    return repo, shas


def _by_sha(merges: list[gitlog.GitMerge]) -> dict[str, gitlog.GitMerge]:
    return {m.sha: m for m in merges}


def test_directories_come_and_go_with_their_first_and_last_file(dirs_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = dirs_repo
    m = _by_sha(list(gitlog.read_merges(repo)))
    assert m[shas["root"]].added == ("README.md", "keep/k.py", "keep/")
    assert m[shas["nested"]].added == ("a/b/c.py", "a/", "a/b/")
    # the new directories are touched paths too (the ledger keeps added a subset of paths)
    assert m[shas["nested"]].paths == ("a/b/c.py", "a/", "a/b/")
    assert (m[shas["more"]].added, m[shas["more"]].deleted) == (("a/d.py", "keep/k2.py"), ())
    assert (m[shas["drop-b"]].added, m[shas["drop-b"]].deleted) == ((), ("a/b/c.py", "a/b/"))
    assert m[shas["drop-b"]].paths == ("a/b/c.py",)  # a deleted directory is not a touched path
    assert (m[shas["move"]].added, m[shas["move"]].deleted) == (("z/d.py", "z/"), ("a/d.py", "a/"))
    assert (m[shas["swap"]].added, m[shas["swap"]].deleted) == (("z/y/new.py", "z/y/"), ("z/d.py",))


def test_a_range_counts_from_the_tree_before_its_first_commit(dirs_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = dirs_repo
    # starting after "nested": a/ already exists at the range's first parent
    m = _by_sha(list(gitlog.read_merges(repo, f"{shas['nested']}..HEAD")))
    assert m[shas["more"]].added == ("a/d.py", "keep/k2.py")
    assert m[shas["drop-b"]].deleted == ("a/b/c.py", "a/b/")
    # without rename detection the move is a deletion and an addition: the same directories
    plain = _by_sha(list(gitlog.read_merges(repo, f"{shas['drop-b']}..HEAD", renames=False)))
    assert (plain[shas["move"]].added, plain[shas["move"]].deleted) == (("z/d.py", "z/"), ("a/d.py", "a/"))


def test_replay_retires_directory_findings_when_the_directory_goes_or_comes(
    dirs_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    repo, shas = dirs_repo
    retire_drift_on_touch(ledger_conn, "dirs")  # expects present / absent: the path rule as such
    observed = datetime(2026, 7, 1, 12, tzinfo=timezone.utc)  # after the root commit
    gone = fl.add_finding(ledger_conn, "dirs", "a/b/ should not exist", paths=["a/b/"], kind="drift",
                          expects="absent", observed_at=observed)
    come = fl.add_finding(ledger_conn, "dirs", "z/ does not exist", paths=["z/"], kind="drift",
                          expects="present", observed_at=observed)
    gitlog.replay(ledger_conn, "dirs", gitlog.read_merges(repo, f"{shas['root']}..HEAD"))
    got = dict(ledger_conn.execute(
        "SELECT f.id, m.commit_sha FROM ledger.finding f JOIN ledger.merge m ON m.id = f.superseded_by_merge_id "
        "WHERE f.id = ANY(%s)", ([gone.id, come.id],)).fetchall())
    # a/b/ is created by "nested" (not a deletion), goes with "drop-b"; z/ comes with "move"
    assert got == {gone.id: shas["drop-b"], come.id: shas["move"]}
