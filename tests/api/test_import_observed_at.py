"""import-findings --observed-at / --observed-at-commit (the commit's
committer time read from a real git repository), and the one-line warning
when a drift review carries no date."""

from __future__ import annotations

import json
from datetime import datetime, time, timezone
from pathlib import Path
from typing import Any

import psycopg
from click.testing import CliRunner
from support.gitrepo import git, write

from findings_ledger.cli import main

REVIEW = {"drift_findings": [
    {"severity": "major", "description": "extraction.py does not exist", "spec_ref": "tasks.md:1",
     "artifact_ref": "pkg/extraction.py", "expects": "present"},
    {"severity": "minor", "description": "dated on its own", "spec_ref": "tasks.md:2",
     "artifact_ref": "pkg/other.py", "observed_at": "2026-03-01T08:00:00Z"},
]}


def _observed(conn: psycopg.Connection[Any], scope: str) -> dict[str, datetime]:
    return dict(conn.execute("SELECT title, observed_at FROM ledger.finding WHERE scope = %s", (scope,)).fetchall())


def _review(tmp_path: Path, data: dict[str, Any] = REVIEW) -> Path:
    p = tmp_path / "review.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def test_observed_at_dates_the_undated_entries(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                               tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["import-findings", str(_review(tmp_path)), "--scope", "obs",
                                    "--observed-at", "2026-04-13T18:19:15+02:00", "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert "warning" not in out.output
    assert _observed(ledger_conn, "obs") == {
        "extraction.py does not exist": datetime(2026, 4, 13, 16, 19, 15, tzinfo=timezone.utc),
        "dated on its own": datetime(2026, 3, 1, 8, tzinfo=timezone.utc),  # its own date wins
    }
    # a bare date is the end of that day (UTC), as in the files
    CliRunner().invoke(main, ["import-findings", str(_review(tmp_path)), "--scope", "obs-day",
                              "--observed-at", "2026-04-13", "--dsn", ledger_dsn])
    got = _observed(ledger_conn, "obs-day")["extraction.py does not exist"]
    assert got == datetime.combine(datetime(2026, 4, 13).date(), time.max, tzinfo=timezone.utc)


def test_observed_at_commit_is_the_commits_committer_time(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                                          tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, "spec.md", "spec\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "spec", date="2026-04-13T18:19:15+02:00")
    sha = git(repo, "rev-parse", "HEAD")
    out = CliRunner().invoke(main, ["import-findings", str(_review(tmp_path)), "--scope", "obs-c",
                                    "--observed-at-commit", sha[:10], str(repo), "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert _observed(ledger_conn, "obs-c")["extraction.py does not exist"] == datetime(
        2026, 4, 13, 16, 19, 15, tzinfo=timezone.utc)


def test_an_undated_drift_review_warns_in_one_line(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                                   tmp_path: Path) -> None:
    out = CliRunner().invoke(main, ["import-findings", str(_review(tmp_path)), "--scope", "obs-w",
                                    "--dsn", ledger_dsn])
    assert out.exit_code == 0
    warnings = [line for line in out.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: 1 drift finding(s) of review.json carry no date: observed now, so a replay of "
                        "earlier history retires none of them (give --observed-at or --observed-at-commit SHA REPO)"]
    # everything was imported anyway
    assert len(_observed(ledger_conn, "obs-w")) == 2


def test_mistakes_are_one_line(ledger_conn: psycopg.Connection[Any], ledger_dsn: str, tmp_path: Path) -> None:
    review = str(_review(tmp_path))
    cases = [
        (["--observed-at", "yesterday"], "error: --observed-at 'yesterday' is not a date or an ISO 8601 timestamp"),
        (["--observed-at", "2026-01-01", "--observed-at-commit", "HEAD", str(tmp_path)],
         "error: give at most one of --observed-at and --observed-at-commit"),
        (["--observed-at-commit", "deadbeef", str(tmp_path)], f"error: commit 'deadbeef' cannot be read in {tmp_path}"),
    ]
    for extra, start in cases:
        out = CliRunner().invoke(main, ["import-findings", review, "--scope", "obs-x", *extra, "--dsn", ledger_dsn])
        assert out.exit_code == 1, out.output
        assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith(start), out.stderr
    assert _observed(ledger_conn, "obs-x") == {}
