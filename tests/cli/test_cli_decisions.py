"""The command line of the decisions on real histories: replay-git recording added, deleted and hunks
(partial clones, --no-renames, findings observed after some commits), the
policy and hygiene-mode verbs (LD005 unless --create), prompt --group, and
one-line errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result
from support.gitrepo import build_hunk_repo, git, lines, write
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.cli import main

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("c", "g", "h", "p", "r", "s", autouse=False)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env={"COLUMNS": "200"})


def assert_user_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 1, result.output
    out = result.stderr.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in out[0], out[0]
    assert "Traceback" not in result.output


@pytest.fixture
def hunk_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "repo"
    return path, build_hunk_repo(path)


def merges(dsn: str, scope: str) -> list[tuple[str, list[str], list[str] | None, list[str] | None, object]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT commit_sha, paths, added, deleted, hunks FROM ledger.merge WHERE scope = %s "
                            "ORDER BY id", (scope,)).fetchall()


@pytest.mark.usefixtures("drift_retires_on_touch")
def test_replay_git_records_added_deleted_and_hunks(ledger_dsn: str, hunk_repo: tuple[Path, dict[str, str]]) -> None:
    path, shas = hunk_repo
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        observed = datetime(2026, 6, 20, 12, tzinfo=timezone.utc)
        # line 42 of src/a.py: 10 lines go in above it, then it is rewritten (old 42 -> new 52)
        fl.add_finding(conn, "r", "line 42 is wrong", paths=["src/a.py:42"], kind="drift", finding_key="L42",
                       observed_at=observed)
        fl.add_finding(conn, "r", "line 5 is wrong", paths=["src/a.py:5"], kind="drift", finding_key="L5",
                       observed_at=observed)
        fl.add_finding(conn, "r", "gone.txt still exists", paths=["gone.txt"], kind="drift", finding_key="GONE",
                       expects="absent", observed_at=observed)
    result = run("replay-git", str(path), "--scope", "r", "--dsn", ledger_dsn)
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == ""  # every diff was read: no warning
    assert result.stdout.strip() == "r: 4 merges recorded, 0 already recorded, 2 findings superseded"
    rows = merges(ledger_dsn, "r")
    assert [r[0] for r in rows] == [shas[k] for k in ("add", "edit", "move", "merge")]
    move = rows[2]
    assert (move[2], move[3]) == (["docs/c.md"], ["docs/b.md", "gone.txt"])
    assert move[4] == {"docs/b.md": [[3, 1, 3, 1]], "gone.txt": [[1, 3, 0, 0]], "src/a.py": []}
    assert rows[1][4] == {"src/a.py": [[0, 0, 1, 10], [42, 1, 52, 1]]}
    with psycopg.connect(ledger_dsn) as conn:
        state = dict(conn.execute("SELECT finding_key, m.commit_sha FROM ledger.finding f "
                                  "LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id").fetchall())
        anchors = conn.execute("SELECT anchors FROM ledger.finding WHERE finding_key = 'L5'").fetchone()
    # the rewrite of line 42 retires L42; L5 only moved by the 10 lines above it; the deletion retires GONE
    assert state == {"L42": shas["edit"], "L5": None, "GONE": shas["move"]}
    assert anchors == ({"src/a.py": [15, 15]},)


@pytest.mark.usefixtures("drift_retires_on_touch")
def test_a_commit_older_than_the_finding_never_retires_it(ledger_dsn: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, "app.py", lines(5))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "create app.py", date="2026-06-17T10:00:00+00:00")
    write(repo, "app.py", lines(6))
    git(repo, "commit", "-q", "-am", "extend app.py", date="2026-06-25T10:00:00+00:00")
    findings = tmp_path / "findings"
    findings.mkdir()
    write(findings, "2026-06-24-app-bug.md", "---\ntitle: app.py crashes\nkind: drift\npaths: app.py\n---\n")
    assert run("import-findings", str(findings), "--scope", "c", "--dsn", ledger_dsn).exit_code == 0
    result = run("replay-git", str(repo), "--scope", "c", "--dsn", ledger_dsn)
    assert result.stdout.strip() == "c: 2 merges recorded, 0 already recorded, 1 findings superseded"
    with psycopg.connect(ledger_dsn) as conn:
        audit = conn.execute("SELECT m.message, a.action FROM ledger.supersession a "
                             "JOIN ledger.merge m ON m.id = a.merge_id ORDER BY a.id").fetchall()
    # the file's date (2026-06-24) is kept: the commit of 06-17 is audited, not applied
    assert audit == [("create app.py", "not_before_observed"), ("extend app.py", "superseded")]


def _partial_clone(path: Path, tmp_path: Path) -> Path:
    origin = shutil.copytree(path, tmp_path / "origin", symlinks=True)
    subprocess.run(["git", "-C", str(origin), "config", "uploadpack.allowFilter", "true"], check=True)
    clone = tmp_path / "partial"
    subprocess.run(["git", "clone", "-q", "--no-local", "--filter=blob:none", origin.as_uri(), str(clone)],
                   check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"})
    shutil.rmtree(origin)  # offline: the blobs it lacks cannot be fetched
    return clone


@pytest.mark.parametrize("flags", [[], ["--no-renames"]])
def test_replay_git_of_a_partial_clone_warns_once_and_records_everything(
    ledger_dsn: str, hunk_repo: tuple[Path, dict[str, str]], tmp_path: Path, flags: list[str]
) -> None:
    path, shas = hunk_repo
    clone = _partial_clone(path, tmp_path)
    result = run("replay-git", str(clone), "--scope", "p", *flags, "--dsn", ledger_dsn)
    assert result.exit_code == 0, result.output
    warning = result.stderr.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: 3 commit(s) recorded without hunks"), result.stderr
    assert "missing from the repository" in warning[0] and "the file-level rule applies" in warning[0]
    assert warning[0].endswith(", ".join(shas[k][:12] for k in ("add", "edit", "move")))
    assert "Traceback" not in result.output
    assert result.stdout.strip() == "p: 4 merges recorded, 0 already recorded, 0 findings superseded"
    rows = merges(ledger_dsn, "p")
    assert [r[4] for r in rows] == [None, None, None, {"new/x.py": [[0, 0, 1, 2]]}]
    # what the trees tell is still recorded: the rename as a deletion and an addition
    assert (rows[2][2], rows[2][3]) == (["docs/c.md"], ["docs/b.md", "gone.txt"])


def test_hygiene_dry_run_names_the_unreadable_commits_too(ledger_dsn: str, hunk_repo: tuple[Path, dict[str, str]],
                                                         tmp_path: Path) -> None:
    path, _ = hunk_repo
    clone = _partial_clone(path, tmp_path)
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        fl.add_finding(conn, "h", "x", paths=["gone.txt"], kind="drift", observed_at=datetime(2026, 1, 1,
                                                                                              tzinfo=timezone.utc))
    result = run("hygiene", "--mode", "dry", str(clone), "--scope", "h", "--no-renames", "--dsn", ledger_dsn)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("warning: 3 commit(s) read without hunks")


def test_policy_shows_and_sets_the_match_policy(ledger_dsn: str) -> None:
    assert_user_error(run("policy", "spec7", "--dsn", ledger_dsn), "unknown scope", "spec7", "LD005")
    created = run("policy", "spec7", "--create", "--dsn", ledger_dsn)
    assert created.exit_code == 0, created.output
    assert created.stdout.splitlines() == [
        "scope           spec7",
        "hygiene_mode    on",
        "rules           path, key, slug, keyword, title",
        "path_kinds      drift",
        "slug_mentions   off",
        "default_branch  (none: every branch counts)",
        "line_context    0",
        "touch           (default: flag for drift, retire for every other kind)",
    ]
    changed = run("policy", "spec7", "--path-kinds", "drift, review", "--slug-mentions", "on", "--line-context", "3",
                  "--default-branch", "main", "--rules", "path,key", "--dsn", ledger_dsn)
    assert changed.exit_code == 0, changed.output
    assert changed.stdout.splitlines()[2:] == [
        "rules           path, key",
        "path_kinds      drift, review",
        "slug_mentions   on",
        "default_branch  main",
        "line_context    3",
        "touch           (default: flag for drift, retire for every other kind)",
    ]
    kept = run("policy", "spec7", "--path-kinds", "*", "--default-branch", "", "--dsn", ledger_dsn)
    assert kept.stdout.splitlines()[2:] == [
        "rules           path, key",
        "path_kinds      *",
        "slug_mentions   on",
        "default_branch  (none: every branch counts)",
        "line_context    3",
        "touch           (default: flag for drift, retire for every other kind)",
    ]
    assert_user_error(run("policy", "spec7", "--line-context", "-1", "--dsn", ledger_dsn), "line_context", "LD003")
    assert_user_error(run("policy", "spec7", "--rules", "key,paths", "--dsn", ledger_dsn), "paths", "LD003")
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.scope").fetchone() == (1,)


def test_hygiene_mode_on_an_unknown_scope_says_so(ledger_dsn: str) -> None:
    assert_user_error(run("hygiene-mode", "spec-7", "dry", "--dsn", ledger_dsn), "unknown scope", "spec-7", "LD005")
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.scope").fetchone() == (0,)
    created = run("hygiene-mode", "spec-7", "dry", "--create", "--dsn", ledger_dsn)
    assert created.exit_code == 0 and created.stdout.strip() == "spec-7: hygiene_mode = dry"
    assert run("hygiene-mode", "spec-7", "on", "--dsn", ledger_dsn).stdout.strip() == "spec-7: hygiene_mode = on"


def test_prompt_keeps_the_last_groups(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        for group in (0, 2, 4):
            fl.add_finding(conn, "g", f"from group {group}", kind="drift", task_group=f"07_x:{group}")
        fl.add_finding(conn, "g", "no group", kind="drift")
    result = run("prompt", "g", "--group", "07_x:5", "--max-groups", "2", "--dsn", ledger_dsn)
    assert result.exit_code == 0, result.output
    shown = sorted(line.rsplit(" (finding ", 1)[0] for line in result.stdout.splitlines() if line.startswith("["))
    assert shown == ["[medium] from group 4", "[medium] no group"]
    assert_user_error(run("prompt", "g", "--max-groups", "2", "--dsn", ledger_dsn), "LD002")
    assert_user_error(run("prompt", "g", "--group", "x", "--max-groups", "2", "--dsn", ledger_dsn), "LD003")


def test_replay_git_errors_are_one_line(ledger_dsn: str, hunk_repo: tuple[Path, dict[str, str]],
                                        tmp_path: Path) -> None:
    path, _ = hunk_repo
    assert_user_error(run("replay-git", str(tmp_path), "--scope", "s", "--dsn", ledger_dsn),
                      "git rev-list", "not a git repository")
    assert_user_error(run("replay-git", str(path), "--scope", "s", "--range", "nope", "--no-renames",
                          "--dsn", ledger_dsn), "nope")
