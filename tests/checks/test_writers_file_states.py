"""Writers answer file-state requests from git: replay-git reads the paths a
checked finding's request names at each commit (text, absent, a directory's
existence, a binary file as absent of text) and answers in the merge's
transaction; a crash between the merge and its answer leaves the request
pending and a rerun answers it."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from support.gitrepo import git, write

from findings_ledger import gitlog
from findings_ledger.checks import MAX_TEXT_BYTES, read_file_states, record_file_states
from findings_ledger.cli import main
from findings_ledger.merges import record_merge, record_merges


def _commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=f"2026-08-{day:02d}T10:00:00+00:00")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def checked_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("checks") / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {}
    write(repo, "app/archetypes.py", 'REGISTRY = {"skeptic": 1}\n')
    write(repo, "README.md", "x\n")
    shas["spec"] = _commit(repo, "spec", 1)
    write(repo, "app/archetypes.py", 'REGISTRY = {"skeptic": 1}\n# TODO reviewer\n')  # a touch, not the fix
    shas["touch"] = _commit(repo, "chore: touch archetypes", 2)
    write(repo, "app/archetypes.py", 'REGISTRY = {"reviewer": 1}\n')  # the fix
    (repo / "blob.bin").write_bytes(b"\0\1reviewer")
    shas["fix"] = _commit(repo, "feat: one reviewer archetype", 3)
    write(repo, "app/archetypes.py", 'REGISTRY = {"reviewer": 2}\n')
    shas["after"] = _commit(repo, "later edit", 4)
    return repo, shas


CHECK = {"all": [{"file_contains": {"path": "app/archetypes.py", "pattern": '"reviewer"'}},
                 {"file_lacks": {"path": "app/archetypes.py", "pattern": '"skeptic"'}}]}


def _checked(conn: psycopg.Connection, scope: str) -> int:
    row = conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
        "VALUES (%s, 'the registry still has skeptic, no reviewer', 'drift', %s, %s, %s) RETURNING id",
        (scope, ["app/archetypes.py"], datetime(2026, 8, 1, 12, tzinfo=timezone.utc), json.dumps(CHECK)),
    ).fetchone()
    assert row is not None
    return int(row[0])


def _retired_by(conn: psycopg.Connection, fid: int) -> tuple[str | None, str | None]:
    row = conn.execute("SELECT m.commit_sha, f.supersede_rule FROM ledger.finding f "
                       "LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id WHERE f.id = %s", (fid,)).fetchone()
    assert row is not None
    return row[0], row[1]


def _pending(conn: psycopg.Connection, scope: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "SELECT commit_sha FROM ledger.pending_file_state WHERE scope = %s ORDER BY merge_id", (scope,))]


def test_states_read_from_git(checked_repo: tuple[Path, dict[str, str]]) -> None:
    repo, shas = checked_repo
    got = read_file_states(repo, shas["fix"], ["app/archetypes.py", "app/", "nope.py", "gone/", "blob.bin", "app"])
    assert got == {"app/archetypes.py": 'REGISTRY = {"reviewer": 1}\n', "app/": "app/archetypes.py",
                   "nope.py": None, "gone/": None, "blob.bin": None, "app": None}
    assert MAX_TEXT_BYTES == 1 << 20


def test_replay_git_answers_and_the_check_retires_at_its_fix(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    repo, shas = checked_repo
    fid = _checked(ledger_conn, "chk")
    out = CliRunner().invoke(main, ["replay-git", str(repo), "--scope", "chk", "--range", f"{shas['spec']}..HEAD",
                                    "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    # the touch opened a request whose answer failed the check; the fix's answer held
    assert _retired_by(ledger_conn, fid) == (shas["fix"], "check")
    assert _pending(ledger_conn, "chk") == []
    actions = [r[0] for r in ledger_conn.execute(
        "SELECT action FROM ledger.supersession WHERE finding_id = %s ORDER BY id", (fid,))]
    assert "check_failed" in actions and actions[-1] == "superseded"


def test_a_crash_between_merge_and_answer_is_answered_by_a_rerun(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    repo, shas = checked_repo
    fid = _checked(ledger_conn, "crash")
    merges = list(gitlog.read_merges(repo, f"{shas['spec']}..HEAD"))
    # the merges are recorded, the writer dies before answering
    record_merges(ledger_conn, "crash", [
        {"commit_sha": m.sha, "paths": m.paths, "message": m.message, "merged_at": m.committed_at,
         "added": m.added, "deleted": m.deleted, "hunks": m.hunks_json()} for m in merges])
    assert _pending(ledger_conn, "crash") == [shas["touch"], shas["fix"], shas["after"]]
    assert _retired_by(ledger_conn, fid) == (None, None)  # a pending request never hides a finding
    # the rerun records nothing new and answers what is pending
    again = gitlog.replay(ledger_conn, "crash", gitlog.read_merges(repo, f"{shas['spec']}..HEAD"), repo=repo)
    assert [r.recorded for r in again] == [False, False, False]
    assert _pending(ledger_conn, "crash") == []
    assert _retired_by(ledger_conn, fid) == (shas["fix"], "check")


def test_record_merge_with_a_repo_answers_in_its_transaction(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    repo, shas = checked_repo
    fid = _checked(ledger_conn, "api")
    by_sha = {m.sha: m for m in gitlog.read_merges(repo, f"{shas['spec']}..HEAD")}
    for name in ("touch", "fix"):
        m = by_sha[shas[name]]
        record_merge(ledger_conn, "api", m.sha, m.paths, message=m.message, merged_at=m.committed_at,
                         added=m.added, deleted=m.deleted, hunks=m.hunks_json(), repo=repo)
        assert _pending(ledger_conn, "api") == []
    assert _retired_by(ledger_conn, fid) == (shas["fix"], "check")
    # without a repo the request stays pending for another writer
    m = by_sha[shas["after"]]
    fid2 = _checked(ledger_conn, "api-none")
    record_merge(ledger_conn, "api-none", m.sha, m.paths, message=m.message, merged_at=m.committed_at)
    assert _pending(ledger_conn, "api-none") == [shas["after"]]
    assert _retired_by(ledger_conn, fid2) == (None, None)


def test_record_merge_with_a_repo_returns_what_its_answer_decided(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection
) -> None:
    """The fix's own answer retires the finding: the result says so, as a
    redelivery of the same merge does."""
    repo, shas = checked_repo
    fid = _checked(ledger_conn, "says")
    by_sha = {m.sha: m for m in gitlog.read_merges(repo, f"{shas['spec']}..HEAD")}
    results = {}
    for name in ("touch", "fix"):
        m = by_sha[shas[name]]
        results[name] = record_merge(ledger_conn, "says", m.sha, m.paths, message=m.message,
                                         merged_at=m.committed_at, added=m.added, deleted=m.deleted,
                                         hunks=m.hunks_json(), repo=repo)
    assert results["touch"].superseded == []
    assert [(d.action, d.rule) for d in results["touch"].decisions] == [
        ("check_requested", "path"), ("check_failed", "check"), ("flagged", "check")]  # kind drift: flag
    assert results["fix"].recorded is True
    assert results["fix"].superseded == [fid]
    assert [(d.finding_id, d.action, d.rule) for d in results["fix"].decisions][-1] == (fid, "superseded", "check")
    m = by_sha[shas["fix"]]
    again = record_merge(ledger_conn, "says", m.sha, m.paths, message=m.message, merged_at=m.committed_at,
                             added=m.added, deleted=m.deleted, hunks=m.hunks_json(), repo=repo)
    assert again.recorded is False
    assert again.decisions == results["fix"].decisions


def test_replay_git_counts_the_retirements_its_answers_decided(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    repo, shas = checked_repo
    fids = [_checked(ledger_conn, "count") for _ in range(3)]
    out = CliRunner().invoke(main, ["replay-git", str(repo), "--scope", "count", "--range",
                                    f"{shas['spec']}..HEAD", "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert out.stdout.strip() == "count: 3 merges recorded, 0 already recorded, 3 findings superseded"
    assert [_retired_by(ledger_conn, f) for f in fids] == [(shas["fix"], "check")] * 3
    # the results of the API say the same, merge by merge
    fid = _checked(ledger_conn, "count-api")
    done = gitlog.replay(ledger_conn, "count-api", gitlog.read_merges(repo, f"{shas['spec']}..HEAD"), repo=repo)
    assert [r.superseded for r in done] == [[], [fid], []]


def test_a_refused_answer_is_a_warning_and_the_batch_is_kept(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    """Another writer answered the touch's request with other bytes than git
    has (and left the rest pending): replay-git's answer for that merge is
    refused (LD104), reported in one warning line with the request left
    pending, and the batch's merges and the other merges' answers are kept,
    on every rerun."""
    repo, shas = checked_repo
    other = {"all": [{"file_contains": {"path": "app/archetypes.py", "pattern": '"reviewer"'}},
                     {"path_exists": "README.md"}]}
    fid = _checked(ledger_conn, "refuse")
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
        "VALUES ('refuse', 'no reviewer yet', 'drift', %s, '2026-08-01T12:00Z', %s)",
        (["app/archetypes.py", "README.md"], json.dumps(other)))
    merges = list(gitlog.read_merges(repo, f"{shas['spec']}..HEAD"))
    touch = record_merges(ledger_conn, "refuse", [
        {"commit_sha": m.sha, "paths": m.paths, "message": m.message, "merged_at": m.committed_at,
         "added": m.added, "deleted": m.deleted, "hunks": m.hunks_json()} for m in merges[:1]])[0].merge_id
    # another writer's text for app/archetypes.py at the touch, not git's
    record_file_states(ledger_conn, touch, {"app/archetypes.py": "REGISTRY = {}\n"})
    assert _pending(ledger_conn, "refuse") == [shas["touch"]]
    for run in range(2):
        out = CliRunner().invoke(main, ["replay-git", str(repo), "--scope", "refuse", "--range",
                                        f"{shas['spec']}..HEAD", "--dsn", ledger_dsn])
        assert out.exit_code == 0, out.output
        warnings = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
        assert len(warnings) == 1, out.stderr
        assert warnings[0].startswith(f"warning: file states of commit {shas['touch'][:12]} (merge {touch}) "
                                      "refused (LD104), its requests left pending: conflicting states")
        recorded = 2 if run == 0 else 0
        assert out.stdout.strip() == (f"refuse: {recorded} merges recorded, {3 - recorded} already recorded, "
                                      f"{1 if run == 0 else 0} findings superseded")
        assert _pending(ledger_conn, "refuse") == [shas["touch"]]
        # the fix's answer stuck: the first finding (its touch answered, failed) retired
        # there; the other one's held answer waits for its pending touch request
        assert _retired_by(ledger_conn, fid) == (shas["fix"], "check")
        assert ledger_conn.execute("SELECT count(*) FROM ledger.active_finding WHERE scope = 'refuse'"
                                   ).fetchone() == (1,)


@pytest.mark.parametrize("where", ["not a repository", "no such directory", "lacks the commit"])
def test_record_merge_with_a_repo_that_cannot_answer_is_refused(
    checked_repo: tuple[Path, dict[str, str]], ledger_conn: psycopg.Connection, tmp_path: Path, where: str
) -> None:
    """A ``repo`` that is not a git repository holding the commit would leave the merge's
    file-state request pending for ever: refused before anything is written, one error
    naming the repository and the commit."""
    repo, shas = checked_repo
    m = {x.sha: x for x in gitlog.read_merges(repo, f"{shas['spec']}..HEAD")}[shas["fix"]]
    if where == "lacks the commit":
        other = tmp_path / "other"
        other.mkdir()
        git(other, "init", "-q", "-b", "main")
        write(other, "x", "x\n")
        _commit(other, "unrelated", 5)
        bad = other
    else:
        bad = tmp_path / ("plain" if where == "not a repository" else "missing")
        if where == "not a repository":
            bad.mkdir()
    fid = _checked(ledger_conn, "wrong-repo")
    ledger_conn.commit()
    with pytest.raises(ValueError, match=rf"^repo {str(bad)!r}.*{m.sha[:12]}") as err:
        record_merge(ledger_conn, "wrong-repo", m.sha, m.paths, message=m.message, merged_at=m.committed_at,
                         added=m.added, deleted=m.deleted, hunks=m.hunks_json(), repo=bad)
    assert "\n" not in str(err.value)
    ledger_conn.rollback()
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge WHERE scope = 'wrong-repo'").fetchone() == (0,)
    assert _pending(ledger_conn, "wrong-repo") == []
    assert _retired_by(ledger_conn, fid) == (None, None)


def test_a_name_git_stores_in_another_form_is_read_under_it(tmp_path: Path, ledger_conn: psycopg.Connection) -> None:
    """NFD as macOS writes names, a backslash, a trailing space: the ledger's
    path is not git's name, and the file still has its TODO."""
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    names = {"docs/café.md": "docs/cafe\u0301.md", "win/a.py": "win\\a.py", "tail.py": "tail.py ",
             "naïve/x.md": "nai\u0308ve/x.md"}
    for name in names.values():
        write(repo, name, "TODO: finish\n")
    _commit(repo, "add", 1)
    for name in names.values():
        write(repo, name, "TODO: finish\nmore\n")  # touched, the TODO kept
    touch = _commit(repo, "touch", 2)
    normalize = lambda ns: gitlog.normalized_paths(ledger_conn, ns)  # noqa: E731
    assert read_file_states(repo, touch, [*names, "naïve/", "gone.md"], normalize) == {
        **{p: "TODO: finish\nmore\n" for p in names}, "naïve/": "nai\u0308ve/x.md", "gone.md": None}
    ids = []
    for path in ("docs/café.md", "win/a.py", "tail.py"):
        check = {"file_lacks": {"path": path, "pattern": "TODO"}}
        row = ledger_conn.execute(
            "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
            "VALUES ('forms', %s, 'drift', %s, %s, %s) RETURNING id",
            (f"{path} has a TODO", [path], datetime(2026, 8, 1, 12, tzinfo=timezone.utc), json.dumps(check)),
        ).fetchone()
        assert row is not None
        ids.append(row[0])
    gitlog.replay(ledger_conn, "forms", gitlog.read_merges(repo), repo=repo)
    assert [_retired_by(ledger_conn, fid) for fid in ids] == [(None, None)] * 3
    assert _pending(ledger_conn, "forms") == []


def test_a_git_lfs_pointer_is_absent_of_text(tmp_path: Path, ledger_conn: psycopg.Connection) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    pointer = ("version https://git-lfs.github.com/spec/v1\n"
               "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
    write(repo, "model.bin", "old\n")
    _commit(repo, "add", 1)
    write(repo, "model.bin", pointer)
    write(repo, "notes.md", "version https://git-lfs.github.com/spec/v1 is quoted in a note\n")
    sha = _commit(repo, "move to LFS", 2)
    assert read_file_states(repo, sha, ["model.bin", "notes.md"]) == {
        "model.bin": None, "notes.md": "version https://git-lfs.github.com/spec/v1 is quoted in a note\n"}
    check = {"file_contains": {"path": "model.bin", "pattern": "version"}}
    row = ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
        "VALUES ('lfs', 'the model has no version', 'drift', %s, %s, %s) RETURNING id",
        (["model.bin"], datetime(2026, 8, 1, 12, tzinfo=timezone.utc), json.dumps(check)),
    ).fetchone()
    assert row is not None
    gitlog.replay(ledger_conn, "lfs", gitlog.read_merges(repo), repo=repo)
    assert _retired_by(ledger_conn, row[0]) == (None, None)
    assert _pending(ledger_conn, "lfs") == []
