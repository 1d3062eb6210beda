"""The findings-ledger command line, through click's CliRunner, against a
fresh database: migrate, demo, active, audit, replay-git, and user errors
(one ``error:`` line, exit 1, no traceback)."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result
from support.gitrepo import build_repo
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.cli import main

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s", "spec", "repo", autouse=False)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env={"COLUMNS": "200"})


def assert_user_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output + result.stderr


def test_migrate_is_idempotent(ledger_dsn: str) -> None:
    for _ in range(2):
        result = run("migrate", "--dsn", ledger_dsn)
        assert result.exit_code == 0, result.stderr
        assert result.stdout.strip() == "migrated to head"


def test_demo_says_when_it_migrates_a_users_database(ledger_empty_dsn: str) -> None:
    """demo upgrades the database it is given; for a database of the user's
    (--dsn or LEDGER_DSN) it says so first, and not again once at head."""
    first = run("demo", "--dsn", ledger_empty_dsn)
    assert first.exit_code == 0, first.stderr
    name = psycopg.conninfo.conninfo_to_dict(ledger_empty_dsn)["dbname"]
    assert first.stdout.splitlines()[0] == f"migrating database {name!r} from no ledger schema to {fl.head_revision()}"
    second = run("demo", "--dsn", ledger_empty_dsn)
    assert second.exit_code == 0, second.stderr
    assert "migrating" not in second.stdout


def test_demo_prints_the_per_group_table_from_a_fresh_scope(ledger_dsn: str) -> None:
    first = run("demo", "--dsn", ledger_dsn)
    second = run("demo", "--dsn", ledger_dsn)  # reruns are safe: a new scope each time
    assert first.exit_code == 0 and second.exit_code == 0, first.stderr + second.stderr
    out = first.stdout
    assert "12 drift findings, 3,356 characters" in " ".join(out.split())  # the line wraps at the width
    rows = {
        m.group(1): m.group(2, 3, 4, 5, 6)
        for m in re.finditer(r"│\s+(\d|after 7)\s+│\s+([\d,]+)\s+│\s+(\d+)\s+│\s+([\d,]+)\s+│\s+(\d+)\s+│(.*?)│", out)
    }
    # without the ledger, with it (findings, characters of the prompt text, entries flagged), the verdicts;
    # a touch line names its finding's id (1 to 12 in this fresh database) and counts in the characters
    assert {k: v[:4] for k, v in rows.items()} == {
        "2": ("3,356", "12", "3,356", "0"),
        "3": ("3,356", "11", "3,264", "1"),
        "4": ("3,356", "9", "2,855", "2"),
        "5": ("3,356", "6", "1,899", "1"),
        "6": ("3,356", "4", "1,281", "1"),
        "7": ("3,356", "3", "1,021", "1"),
        "after 7": ("3,356", "2", "606", "0"),
    }
    assert {k: v[4].strip() for k, v in rows.items()} == {
        "2": "-", "3": "F03 resolved", "4": "F05, F06 resolved", "5": "F08 resolved", "6": "F09 resolved",
        "7": "F10 resolved", "after 7": "-"}
    assert "342b7a0: retired F02; flagged F03" in out
    assert "packages/nightshift/README.md (inside the finding's packages/nightshift/)" in out
    assert "its check held on the merge's tree: path_exists" in out
    with psycopg.connect(ledger_dsn) as conn:
        scopes = [r[0] for r in conn.execute("SELECT scope FROM ledger.scope ORDER BY scope")]
        assert len(scopes) == 2 and all(s.startswith("demo-07_nightshift_standalone_cli-") for s in scopes)
        assert conn.execute("SELECT count(*) FROM ledger.active_finding").fetchone() == (4,)


@pytest.mark.usefixtures("drift_retires_on_touch")
def test_active_and_audit_list_what_the_database_holds(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        fl.add_finding(conn, "spec", "stale app", paths=["app.py"], kind="drift", finding_key="K1")
        fl.add_finding(conn, "spec", "still relevant", paths=["README.md"], kind="drift", finding_key="K2")
        fl.record_merge(conn, "spec", "abc1234def", ["app.py"], node_id="spec:2",
                        message="Drop the stale app\n\nIt moved to packages/app/.")
    active = run("active", "spec", "--dsn", ledger_dsn)
    assert active.exit_code == 0, active.stderr
    assert "active findings of spec (1)" in active.stdout
    assert "still relevant" in active.stdout and "stale app" not in active.stdout
    audit = run("audit", "spec", "--dsn", ledger_dsn)
    assert audit.exit_code == 0, audit.stderr
    assert "audit of spec (1 rows)" in audit.stdout
    # the commit (short sha) and its subject, not the internal merge id
    assert re.search(r"│\s+1\s+│\s+abc1234def Drop the stale app\s+│\s+superseded\s+│\s+path\s+│"
                     r"\s+app\.py\s+│", audit.stdout), audit.stdout


@pytest.mark.usefixtures("drift_retires_on_touch")
def test_replay_git_records_the_history_and_resumes(ledger_dsn: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shas = build_repo(repo)
    observed = datetime(2026, 6, 20, 12, tzinfo=timezone.utc)  # after the first commit, before the others
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        fl.add_finding(conn, "repo", "old module", paths=["src/old.py"], kind="drift", observed_at=observed)
        fl.add_finding(conn, "repo", "feature", paths=["feat.py"], kind="drift", observed_at=observed)
    first = run("replay-git", str(repo), "--scope", "repo", "--range", f"{shas['add']}..HEAD", "--dsn", ledger_dsn)
    assert first.exit_code == 0, first.stderr
    assert first.stdout.strip() == "repo: 3 merges recorded, 0 already recorded, 2 findings superseded"
    again = run("replay-git", str(repo), "--scope", "repo", "--dsn", ledger_dsn)
    assert again.stdout.strip() == "repo: 1 merges recorded, 3 already recorded, 0 findings superseded"
    since = run("replay-git", str(repo), "--scope", "repo", "--since", "2026-06-22", "--dsn", ledger_dsn)
    assert since.stdout.strip() == "repo: 0 merges recorded, 2 already recorded, 0 findings superseded"
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.merge WHERE scope = 'repo'").fetchone() == (4,)


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["active", "no-such-scope"], ["unknown scope", "no-such-scope", "LD005"]),
        (["audit", "no-such-scope"], ["LD005"]),
        (["hygiene-mode", "", "on"], ["scope.scope", "LD002"]),
        (["replay-git", "{tmp}", "--scope", "s"], ["git rev-list", "failed", "not a git repository"]),
        (["replay-git", "{tmp}/missing", "--scope", "s"], ["failed"]),
        (["replay-git", "{repo}", "--scope", "s", "--range", "no-such-branch"], ["no-such-branch"]),
        (["replay-git", "{repo}", "--scope", "", "--range", "HEAD"], ["merge.scope", "LD002"]),
        # git would read these as options, or take a date it cannot read for now
        (["replay-git", "{repo}", "--scope", "s", "--range", "--output={tmp}/x"], ["invalid revision range",
                                                                                "--output=", "git option"]),
        (["replay-git", "{repo}", "--scope", "s", "--range", "HEAD --all"], ["invalid revision range", "'--all'"]),
        (["replay-git", "{repo}", "--scope", "s", "--since", "garbage"], ["invalid --since 'garbage'", "now or later"]),
        (["replay-git", "{repo}", "--scope", "s", "--since", "2090-01-01"], ["invalid --since", "no commit"]),
        (["hygiene", "--mode", "dry", "{repo}", "--scope", "s", "--since", "soon"], ["invalid --since 'soon'"]),
    ],
)
def test_a_user_error_is_one_line_and_exit_1(
    ledger_dsn: str, tmp_path: Path, args: list[str], fragments: list[str]
) -> None:
    repo = tmp_path / "repo"
    build_repo(repo)
    plain = tmp_path / "plain"
    plain.mkdir()
    argv = [a.replace("{tmp}", str(plain)).replace("{repo}", str(repo)) for a in args]
    result = run(*argv, "--dsn", ledger_dsn)
    assert_user_error(result, *fragments)
    assert list(plain.iterdir()) == []  # nothing written (no git --output)


def test_an_unreachable_server_is_a_user_error(tmp_path: Path) -> None:
    dsn = f"host={tmp_path} port=1 user=nobody dbname=nothing connect_timeout=2"
    assert_user_error(run("active", "spec", "--dsn", dsn), "cannot reach PostgreSQL")
    assert_user_error(run("demo", "--dsn", dsn), "cannot reach PostgreSQL")


def test_a_usage_error_exits_2() -> None:
    result = run("replay-git")
    assert result.exit_code == 2
    assert "Traceback" not in result.output + result.stderr


def test_an_unknown_revision_is_a_user_error(ledger_dsn: str) -> None:
    assert_user_error(run("migrate", "--revision", "9999_nope", "--dsn", ledger_dsn), "9999_nope")
