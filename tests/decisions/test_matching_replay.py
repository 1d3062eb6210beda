"""Replaying a real git history against imported findings files:
the commits name findings by key, slug, file name,
keyword and title, both as true resolutions and as mere mentions; the
replay retires exactly the resolved ones, and dry mode (and the
``hygiene --mode dry`` preview) changes nothing but reports the same
decisions."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.cli import main
from findings_ledger.gitlog import read_merges, replay

FINDINGS = {
    "2026-06-20-retry-storm.md": (
        "---\nid: F-101\ntitle: Retry storm after connection resets in the pool\n"
        "strong_keywords: [ECONNRESET_POOL]\nsource_bot: reviewer\ntags: [pool]\n---\nThe pool retries forever.\n"
    ),
    "2026-06-21-stale-drift.md": (
        "---\nfinding_id: F-102\ntitle: Drift findings are frozen at the initial drift-review phase\n"
        "kind: review\n---\nBody.\n"
    ),
    "2026-06-22-cli-since.md": "---\nissue_id: F-103\ntitle: CLI ignores the since option\n---\n",
    "2026-06-23-install-typo.md": "---\ntitle: Typo in the install guide\n---\nThe guide says isntall.\n",
    "2026-06-24-night-shift.md": (
        "---\nuid: F-105\ntitle: packages/af/af/nightshift.py still exists in the repository\n"
        "kind: drift\nseverity: major\npaths: [packages/af/af/nightshift.py]\n---\n"
    ),
    "2026-06-25-flaky-timeout.md": "---\nkey: F-106\ntitle: Flaky timeout test in the scheduler suite\n---\n",
    "2026-06-26-broken.md": "---\ntitle: [unclosed\nid: F-107\n---\nBroken front matter.\n",
    "README.md": "# Findings\n",
}
RESOLVED = {"F-101", "F-102", "F-105", "install-typo"}
STILL_ACTIVE = {"F-103", "F-106"}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_AUTHOR_DATE": "2026-07-01T12:00:00+00:00", "GIT_COMMITTER_DATE": "2026-07-01T12:00:00+00:00"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def commit(repo: Path, message: str, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        p = repo / name
        if text is None:
            git(repo, "rm", "-q", name)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The findings directory, and a repository whose history after its
    initial import (HEAD~8..HEAD) names them."""
    base = tmp_path_factory.mktemp("ws")
    findings = base / "findings"
    findings.mkdir()
    for name, text in FINDINGS.items():
        (findings / name).write_text(text)
    repo = base / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "Initial import", {"src/pool.py": "retry = True\n", "docs/install.md": "isntall\n",
                                    "packages/af/af/nightshift.py": "x = 1\n", "src/sched.py": "t = 1\n"})
    commit(repo, "Add finding 2026-06-20-retry-storm.md\n\nSee F-101 for the details.",
           {"docs/findings/2026-06-20-retry-storm.md": FINDINGS["2026-06-20-retry-storm.md"]})
    commit(repo, "Stop the retry loop\n\nThe pool now backs off after ECONNRESET_POOL.\n\nFixes F-101",
           {"src/pool.py": "retry = False\n"})
    commit(repo, "Refactor scheduler, see F-106 and `F-103`", {"src/sched.py": "t = 2\n"})
    commit(repo, "docs: closes 2026-06-23-install-typo.md", {"docs/install.md": "install\n"})
    commit(repo, 'Revert "Fix flaky timeout test in the scheduler suite"\n\nThis reverts commit 54a4f0239f2e.',
           {"src/sched.py": "t = 3\n"})
    commit(repo, "Remove the night-shift module", {"packages/af/af/nightshift.py": None})
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, "WIP: fixes F-103", {"src/cli.py": "since = None\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "feature", "-m",
        "Merge branch 'feature'\n\nUnfreezes the drift findings.\n\nResolves: F-102")
    commit(repo, "cli: this does not fix F-103 yet", {"src/cli.py": "since = 1\n"})
    return findings, repo


def summary(conn: psycopg.Connection[Any], scope: str, results: list[fl.MergeResult]) -> list[tuple[Any, ...]]:
    """(merge index, finding key or slug, action, rule, evidence, reason) of a replay."""
    names = {r[0]: r[1] for r in conn.execute(
        "SELECT id, coalesce(finding_key, slug) FROM ledger.finding WHERE scope = %s", (scope,))}
    return [(i, names.get(d.finding_id), d.action, d.rule, d.evidence, d.reason)
            for i, res in enumerate(results) for d in res.decisions]


def active_names(conn: psycopg.Connection[Any], scope: str) -> set[str]:
    return {r[0] for r in conn.execute(
        "SELECT coalesce(finding_key, slug) FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL",
        (scope,))}


def test_import_reports_bad_files_and_imports_the_rest(ledger_conn: psycopg.Connection[Any],
                                                       workspace: tuple[Path, Path]) -> None:
    findings, _ = workspace
    report = fl.import_findings(ledger_conn, "ws", findings)
    assert sorted(s.name for s in report.skipped) == ["2026-06-26-broken.md", "README.md"]
    assert report.count("inserted") == 6
    assert active_names(ledger_conn, "ws") == RESOLVED | STILL_ACTIVE
    row = ledger_conn.execute(
        "SELECT strong_keywords, tags, source, description, slug FROM ledger.finding WHERE finding_key = 'F-101'"
    ).fetchone()
    assert row == (["ECONNRESET_POOL"], ["pool"], "reviewer", "The pool retries forever.", "retry-storm")
    again = fl.import_findings(ledger_conn, "ws", findings)
    assert again.count("unchanged") == 6 and again.count("inserted") == 0
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (6,)


def test_replay_retires_exactly_the_resolved_findings(ledger_conn: psycopg.Connection[Any],
                                                      workspace: tuple[Path, Path]) -> None:
    findings, repo = workspace
    retire_drift_on_touch(ledger_conn, "ws")  # the path rule as such on the drift findings
    fl.import_findings(ledger_conn, "ws", findings)
    merges = list(read_merges(repo, "HEAD~8..HEAD"))
    assert len(merges) == 8  # after the initial import; the feature branch's own commit is not first-parent
    results = replay(ledger_conn, "ws", merges)

    assert active_names(ledger_conn, "ws") == STILL_ACTIVE
    got = {(name, action, rule) for _, name, action, rule, _, _ in summary(ledger_conn, "ws", results)}
    assert got == {
        ("F-101", "mention", "key"),          # the commit that files it only names it
        ("F-101", "superseded", "key"),       # Fixes F-101
        ("F-106", "mention", "key"),          # see F-106
        ("F-103", "mention", "key"),          # `F-103`, then "does not fix F-103"
        ("install-typo", "superseded", "slug"),
        ("F-106", "mention", "title"),        # the Revert "..." subject
        ("F-105", "superseded", "path"),      # drift finding, file deleted
        ("F-102", "superseded", "key"),       # Resolves: F-102 in the merge commit
        (None, "revert_unknown", "revert"),   # the lifecycle's revert rule: 54a4f0239f2e is no merge of the scope
    }
    rules = dict(ledger_conn.execute(
        "SELECT coalesce(finding_key, slug), supersede_rule FROM ledger.finding WHERE superseded_at IS NOT NULL"))
    assert rules == {"F-101": "key", "install-typo": "slug", "F-105": "path", "F-102": "key"}


def test_dry_mode_changes_nothing_and_reports_the_same_decisions(ledger_conn: psycopg.Connection[Any],
                                                                 workspace: tuple[Path, Path]) -> None:
    findings, repo = workspace
    merges = list(read_merges(repo, "HEAD~8..HEAD"))
    retire_drift_on_touch(ledger_conn, "live", "dry")  # the path rule as such on the drift findings
    for scope in ("live", "dry"):
        fl.import_findings(ledger_conn, scope, findings)
    fl.set_hygiene_mode(ledger_conn, "dry", "dry")
    live = summary(ledger_conn, "live", replay(ledger_conn, "live", merges))
    dry = summary(ledger_conn, "dry", replay(ledger_conn, "dry", merges))

    assert active_names(ledger_conn, "dry") == RESOLVED | STILL_ACTIVE
    assert [(i, n, "superseded" if a == "would_supersede" else a, r, e, w) for i, n, a, r, e, w in dry] == live
    assert sum(1 for d in dry if d[2] == "would_supersede") == len(RESOLVED)


def test_preview_and_cli_hygiene_dry_change_nothing(ledger_conn: psycopg.Connection[Any], ledger_dsn: str,
                                                    workspace: tuple[Path, Path]) -> None:
    findings, repo = workspace
    retire_drift_on_touch(ledger_conn, "ws")  # the path rule as such on the drift findings
    fl.import_findings(ledger_conn, "ws", findings)
    merges = list(read_merges(repo, "HEAD~8..HEAD"))
    preview = fl.preview_replay(ledger_conn, "ws", merges)
    would = {d.finding_id for _, res in preview for d in res.decisions if d.action == "would_supersede"}
    assert len(would) == len(RESOLVED)

    out = CliRunner().invoke(main, ["hygiene", "--mode", "dry", str(repo), "--scope", "ws", "--dsn", ledger_dsn,
                                    "--range", "HEAD~8..HEAD"])
    assert out.exit_code == 0, out.output
    assert "would retire 4 finding(s)" in out.output
    for name in ("F-101", "F-102", "F-105", "install-typo"):
        assert name in out.output

    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (0,)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)
    assert ledger_conn.execute("SELECT hygiene_mode FROM ledger.scope WHERE scope = 'ws'").fetchone() == ("on",)
    assert active_names(ledger_conn, "ws") == RESOLVED | STILL_ACTIVE

    since = CliRunner().invoke(main, ["hygiene", "--mode", "dry", str(repo), "--scope", "ws", "--dsn", ledger_dsn,
                                      "--range", "HEAD~2..HEAD"])
    assert since.exit_code == 0, since.output
    assert "would retire 1 finding(s)" in since.output  # only the merge commit's Resolves: F-102
    later = CliRunner().invoke(main, ["hygiene", "--mode", "dry", str(repo), "--scope", "ws", "--dsn", ledger_dsn,
                                      "--since", "2026-07-02"])
    assert later.exit_code == 0, later.output
    assert "0 commits read; a replay would retire 0 finding(s)" in later.output
