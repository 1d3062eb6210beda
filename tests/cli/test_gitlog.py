"""The git reader (first-parent merges with their exact touched paths, what
they added and deleted, their -U0 hunks; partial, damaged and shallow
clones) and replaying a real repository's history into the ledger."""

from __future__ import annotations

import os
import shutil
import subprocess
import unicodedata
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from support.gitrepo import NON_ASCII, QUOTE, SPACE, build_hunk_repo, build_repo, git
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger import gitlog
from findings_ledger.errors import ValueInvalid


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
    # the directories whose first file it adds are touched (and added) too
    assert sorted(merges[0].paths) == sorted(["a.py", "src/old.py", "docs/x.md", SPACE, QUOTE, NON_ASCII,
                                              "src/", "docs/", "dir with space/", "naïve/"])
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


def test_a_range_or_since_git_would_misread_is_a_value_error(repo: tuple[Path, dict[str, str]],
                                                             tmp_path: Path) -> None:
    """A word of the range that starts with '-' would be a git option
    (--output=<file> writes a file); a --since git cannot read is taken by
    git for now and would select nothing, as a future date would."""
    path, shas = repo
    out = tmp_path / "written"
    for rev_range in (f"--output={out}", "HEAD --all", f"{shas['add']}.. -n1", "", "   "):
        with pytest.raises(ValueError, match="invalid revision range"):
            list(gitlog.read_merges(path, rev_range))
    assert not out.exists()
    for since in ("garbage", "", "2090-01-01", "tomorrow"):
        with pytest.raises(ValueError, match="invalid --since .*now or later"):
            list(gitlog.read_merges(path, since=since))
    assert [m.sha for m in gitlog.read_merges(path, f"main ^{shas['rename']}")] == [shas["merge"], shas["quote"]]
    assert len(list(gitlog.read_merges(path, since="10.years"))) == 4  # git's relative forms are kept


def test_git_failures_are_value_errors(repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, _ = repo
    with pytest.raises(ValueError, match="unknown|bad revision|ambiguous"):
        list(gitlog.read_merges(path, "no-such-branch"))
    with pytest.raises(ValueError):
        list(gitlog.read_merges(tmp_path))  # not a repository


def test_a_path_that_is_not_utf8_is_recorded_left_out_and_named_escaped(
    tmp_path: Path, ledger_conn: psycopg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("a\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    os.mkdir(os.fsencode(str(repo)) + b"/d\xe9j\xe0")
    for name in (b"/bad\xff.txt", b"/d\xe9j\xe0/x.txt"):
        fd = os.open(os.fsencode(str(repo)) + name, os.O_CREAT | os.O_WRONLY)
        os.close(fd)
    (repo / "b.py").write_text("b\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "latin-1 names")
    (repo / "c.py").write_text("c\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "after")
    with caplog.at_level("WARNING", logger="findings_ledger.gitlog"):
        results = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(repo))
    assert [r.recorded for r in results] == [True] * 3
    rows = ledger_conn.execute("SELECT message, paths, added, deleted FROM ledger.merge ORDER BY id").fetchall()
    note = ("Ledger-Replay-Note: 3 path(s) left out, not accepted by the ledger (LD001: not valid UTF-8): "
            "bad\\xff.txt, d\\xe9j\\xe0/x.txt, d\\xe9j\\xe0/")
    assert rows[1] == (f"latin-1 names\n\n{note}", ["b.py"], ["b.py"], [])
    assert rows[2][:2] == ("after", ["c.py"])
    sha = git(repo, "rev-parse", "HEAD~1")
    assert [r.getMessage() for r in caplog.records] == [
        f"commit {sha} recorded changed: {note.removeprefix(gitlog.NOTE_TRAILER)}"]


def test_replay_supersedes_by_the_paths_of_each_commit(
    repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    path, shas = repo
    scope = "repo"
    retire_drift_on_touch(ledger_conn, scope)  # the path rule as such
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
    observed = datetime(2026, 6, 20, 12, tzinfo=timezone.utc)  # after the first commit, before the others
    for key, paths in keys.items():
        ids[key] = fl.add_finding(ledger_conn, scope, key, paths=paths, kind="drift", finding_key=key,
                                  observed_at=observed).id
    # the first commit touches everything but is replayed as history: start after it
    results = gitlog.replay(ledger_conn, scope, gitlog.read_merges(path, f"{shas['add']}..HEAD"))

    assert [r.recorded for r in results] == [True, True, True]
    superseded = ledger_conn.execute(
        "SELECT f.finding_key, f.superseded_by, m.commit_sha, a.evidence "
        "FROM ledger.finding f JOIN ledger.merge m ON m.id = f.superseded_by_merge_id "
        "JOIN ledger.supersession a ON a.finding_id = f.id AND a.action = 'superseded' ORDER BY f.id"
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
    observed = datetime(2026, 6, 1, tzinfo=timezone.utc)  # before the whole history
    fl.add_finding(ledger_conn, "repo", "space", paths=["dir with space/f.md"], kind="drift", observed_at=observed)
    fl.add_finding(ledger_conn, "repo", "non-ascii", paths=[NON_ASCII], kind="drift", observed_at=observed)
    first = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(path))
    state = ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall()
    second = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(path))
    assert [r.recorded for r in first] == [True] * 4
    assert [r.recorded for r in second] == [False] * 4
    assert [r.merge_id for r in second] == [r.merge_id for r in first]
    assert ledger_conn.execute("SELECT * FROM ledger.supersession ORDER BY id").fetchall() == state
    assert [a.evidence for a in fl.read_audit(ledger_conn, "repo")] == [SPACE, NON_ASCII]


@pytest.fixture(scope="module")
def hunk_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("hunks") / "repo"
    return path, build_hunk_repo(path)


def test_hunks_added_and_deleted_come_from_the_first_parent_diff(hunk_repo: tuple[Path, dict[str, str]]) -> None:
    path, shas = hunk_repo
    add, edit, move, merge = gitlog.read_merges(path)
    assert add.added == ("bin.dat", "docs/b.md", "gone.txt", "src/a.py", "docs/", "src/") and add.deleted == ()
    # a binary file has no hunks: it is left out, so the file-level rule applies to it
    assert add.hunks == {"docs/b.md": [(0, 0, 1, 10)], "gone.txt": [(0, 0, 1, 3)], "src/a.py": [(0, 0, 1, 50)]}
    assert edit.hunks == {"src/a.py": [(0, 0, 1, 10), (42, 1, 52, 1)]}
    assert (edit.added, edit.deleted) == ((), ())
    # a rename: both sides touched, old deleted and new added, hunks under the old path;
    # a mode change is a path without changed lines
    assert move.paths == ("bin.dat", "docs/b.md", "docs/c.md", "gone.txt", "src/a.py")
    assert (move.added, move.deleted) == (("docs/c.md",), ("docs/b.md", "gone.txt"))
    assert move.hunks == {"docs/b.md": [(3, 1, 3, 1)], "gone.txt": [(1, 3, 0, 0)], "src/a.py": []}
    assert move.hunks_json() == {"docs/b.md": [[3, 1, 3, 1]], "gone.txt": [[1, 3, 0, 0]], "src/a.py": []}
    # a --no-ff merge against its first parent
    assert merge.is_merge and merge.hunks == {"new/x.py": [(0, 0, 1, 2)]} and merge.added == ("new/x.py", "new/")
    assert all(m.diff_error is None for m in (add, edit, move, merge))


def test_no_renames_reports_a_rename_as_a_deletion_and_an_addition(hunk_repo: tuple[Path, dict[str, str]]) -> None:
    path, _ = hunk_repo
    move = list(gitlog.read_merges(path, renames=False))[2]
    assert (move.added, move.deleted) == (("docs/c.md",), ("docs/b.md", "gone.txt"))
    assert move.hunks is not None
    assert move.hunks["docs/b.md"] == [(1, 10, 0, 0)] and move.hunks["docs/c.md"] == [(0, 0, 1, 10)]


def test_a_type_change_has_no_hunks_and_the_patch_still_lines_up(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "f.txt").write_text("one\ntwo\n")
    (repo / "g.txt").write_text("g\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "files")
    (repo / "f.txt").unlink()
    (repo / "f.txt").symlink_to("g.txt")
    (repo / "g.txt").write_text("g\nmore\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "file to symlink")
    last = list(gitlog.read_merges(repo))[-1]
    assert last.paths == ("f.txt", "g.txt") and last.hunks == {"g.txt": [(1, 0, 2, 1)]}
    assert (last.added, last.deleted, last.diff_error) == ((), (), None)


def _clone(source: Path, target: Path, *args: str) -> Path:
    subprocess.run(["git", "-C", str(source), "config", "uploadpack.allowFilter", "true"], check=True)
    subprocess.run(["git", "clone", "-q", *args, source.resolve().as_uri(), str(target)], check=True,
                   capture_output=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"})
    return target


def test_a_partial_clone_without_its_remote_reads_every_commit(hunk_repo: tuple[Path, dict[str, str]],
                                                               tmp_path: Path) -> None:
    path, shas = hunk_repo
    origin = shutil.copytree(path, tmp_path / "origin", symlinks=True)
    clone = _clone(origin, tmp_path / "partial", "--filter=blob:none", "--no-local")
    shutil.rmtree(origin)  # the promisor remote is gone: no blob can be fetched
    merges = list(gitlog.read_merges(clone))
    assert [m.sha for m in merges] == [shas[k] for k in ("add", "edit", "move", "merge")]
    by_sha = {m.sha: m for m in merges}
    # the checked-out blobs are there; every commit whose diff needs an older one has no hunks
    lacking = [m.subject for m in merges if m.diff_error is not None]
    assert lacking == ["add", "edit", "move"]
    for m in merges:
        if m.diff_error is not None:
            assert m.hunks is None and "missing from the repository" in m.diff_error
    # messages, paths, added and deleted (a rename without detection: deleted + added) are still read
    move = by_sha[shas["move"]]
    assert move.message == "move" and set(move.paths) == {"bin.dat", "docs/b.md", "docs/c.md", "gone.txt", "src/a.py"}
    assert (move.added, move.deleted) == (("docs/c.md",), ("docs/b.md", "gone.txt"))
    assert by_sha[shas["merge"]].hunks == {"new/x.py": [(0, 0, 1, 2)]}
    assert [m.sha for m in gitlog.read_merges(clone, renames=False)] == [m.sha for m in merges]


def test_a_missing_object_costs_only_the_commits_that_need_it(hunk_repo: tuple[Path, dict[str, str]],
                                                              tmp_path: Path) -> None:
    path, shas = hunk_repo
    repo = shutil.copytree(path, tmp_path / "damaged", symlinks=True)
    blob = git(repo, "rev-parse", f"{shas['add']}:docs/b.md")  # read by the diffs of add and move
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    merges = list(gitlog.read_merges(repo))
    assert [m.subject for m in merges] == ["add", "edit", "move", "merge side"]
    assert [m.subject for m in merges if m.diff_error] == ["add", "move"]
    assert merges[1].hunks == {"src/a.py": [(0, 0, 1, 10), (42, 1, 52, 1)]}
    assert blob in (merges[0].diff_error or "")


def test_the_boundary_of_a_shallow_clone_has_no_paths(hunk_repo: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    path, shas = hunk_repo
    clone = _clone(path, tmp_path / "shallow", "--depth", "2")
    merges = list(gitlog.read_merges(clone))
    assert [m.sha for m in merges] == [shas["move"], shas["merge"]]
    boundary = merges[0]
    # diffed against nothing, every file would look added: nothing is claimed
    assert (boundary.paths, boundary.added, boundary.deleted, boundary.hunks) == ((), None, None, None)
    assert "shallow" in (boundary.diff_error or "")
    assert merges[1].hunks == {"new/x.py": [(0, 0, 1, 2)]}


def test_batches_keep_the_order(hunk_repo: tuple[Path, dict[str, str]]) -> None:
    path, shas = hunk_repo
    batches = list(gitlog.read_merge_batches(path, size=3))
    assert [len(b) for b in batches] == [3, 1]
    assert [m.sha for b in batches for m in b] == [shas[k] for k in ("add", "edit", "move", "merge")]
    assert len(gitlog.read_merges(path)) == 4


def test_a_merge_whose_change_kinds_contradict_each_other_is_refused(ledger_conn: psycopg.Connection) -> None:
    cases = [
        (["pkg/new.py", "pkg/old.py"], ["pkg/new.py"], ["pkg/"],
         "invalid merge.added[1] and merge.deleted[1]: 'pkg/new.py' is added but its directory 'pkg/' is deleted"),
        (["a.py", "b.py"], ["b.py", "a.py"], ["./a.py"],
         "invalid merge.added[2] and merge.deleted[1]: 'a.py' is added but also deleted"),
    ]
    for paths, added, deleted, message in cases:
        with pytest.raises(ValueInvalid) as caught:
            fl.record_merge(ledger_conn, "repo", "ab" * 20, paths, added=added, deleted=deleted)
        assert message in str(caught.value)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (0,)


def test_git_never_gives_contradicting_change_kinds(tmp_path: Path, ledger_conn: psycopg.Connection) -> None:
    """A file replaced by a directory of the same name and back, and names
    that are one ledger path renamed to it (NFD to NFC, a backslash, a
    trailing space), replay; such a rename records the path changed."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    nfd, nfc = "docs/cafe\u0301.md", "docs/caf\u00e9.md"
    for name in ("pkg", nfd, "win\\a.py", "tail.py ", "dir\u0301x/f.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(f"{name}\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    git(repo, "rm", "-q", "pkg")
    (repo / "pkg").mkdir()
    (repo / "pkg" / "new.py").write_text("new\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "file to directory")
    git(repo, "rm", "-q", "-r", "pkg")
    (repo / "pkg").write_text("file again\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "directory to file")
    renames = ((nfd, nfc), ("win\\a.py", "win/a.py"), ("tail.py ", "tail.py"), ("dir\u0301x/f.md", "dir\u0301y/f.md"))
    for old, new in renames:
        (repo / new).parent.mkdir(parents=True, exist_ok=True)
        git(repo, "mv", old, new)
    git(repo, "commit", "-q", "-m", "renamed to the ledger's form")
    results = gitlog.replay(ledger_conn, "repo", gitlog.read_merges(repo))
    assert [r.recorded for r in results] == [True] * 4
    rows = ledger_conn.execute("SELECT message, paths, added, deleted FROM ledger.merge ORDER BY id").fetchall()
    x, y = unicodedata.normalize("NFC", "dir\u0301x"), unicodedata.normalize("NFC", "dir\u0301y")
    assert [(msg, sorted(a), sorted(d)) for msg, _, a, d in rows[1:]] == [
        ("file to directory", ["pkg/", "pkg/new.py"], ["pkg"]),
        ("directory to file", ["pkg"], ["pkg/", "pkg/new.py"]),
        ("renamed to the ledger's form", [f"{y}/", f"{y}/f.md"], [f"{x}/", f"{x}/f.md"]),
    ]
    # each name of the rename once, in the ledger's form; the directories that came are touched too
    assert sorted(rows[3][1]) == sorted([nfc, "win/a.py", "tail.py", f"{x}/f.md", f"{y}/f.md", "win/", f"{y}/"])


def test_a_submodule_bump_touches_its_directory(tmp_path: Path, ledger_conn: psycopg.Connection) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.py").write_text("a\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first", date="2026-06-20T10:00:00+00:00")
    one = git(repo, "rev-parse", "HEAD")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{one},vendor/lib")
    git(repo, "commit", "-q", "-m", "add the submodule", date="2026-06-21T10:00:00+00:00")
    git(repo, "update-index", "--cacheinfo", f"160000,{'1' * 40},vendor/lib")
    git(repo, "commit", "-q", "-m", "bump the submodule", date="2026-06-22T10:00:00+00:00")
    merges = list(gitlog.read_merges(repo))
    assert [(m.paths, m.added, m.deleted) for m in merges[1:]] == [
        (("vendor/lib", "vendor/lib/", "vendor/"), ("vendor/lib", "vendor/"), ()),
        (("vendor/lib", "vendor/lib/"), (), ()),
    ]
    retire_drift_on_touch(ledger_conn, "sub")
    observed = datetime(2026, 6, 21, 12, tzinfo=timezone.utc)  # after the submodule came
    ids = {key: fl.add_finding(ledger_conn, "sub", key, paths=[path], kind="drift", finding_key=key,
                               observed_at=observed).id
           for key, path in (("dir", "vendor/lib/"), ("inside", "vendor/lib/src/x.py"))}
    gitlog.replay(ledger_conn, "sub", merges)
    active = {f.id for f in fl.active_findings(ledger_conn, "sub")}
    assert ids["dir"] not in active and ids["inside"] in active
