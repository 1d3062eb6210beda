"""evaluate on a drift case (drift.json + repo.bundle): the bundle cloned at
run time, the line replayed through replay-git's reader and writer, the
reviews imported with the spec commit's date, each policy counted as at the
fix / early / late / never; built here from a real temporary repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from support.gitrepo import git, write

from findings_ledger import evaluate_drift as ed
from findings_ledger.cli import main


def _commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, date=f"2026-09-{day:02d}T10:00:00+00:00")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def case_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("driftcase")
    repo = base / "src"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    write(repo, "pyproject.toml", 'version = "1"\ndependencies = []\n')
    write(repo, "pkg/a.py", "A = 1\n")
    c0 = _commit(repo, "spec: add spec 01", 1)
    write(repo, "pyproject.toml", 'version = "2"\ndependencies = []\n')
    c1 = _commit(repo, "chore: bump version to 2", 2)  # touches the artifact, fixes nothing
    write(repo, "pyproject.toml", 'version = "2"\ndependencies = ["tree-sitter-go"]\n')
    c2 = _commit(repo, "feat(01): declare tree-sitter-go (task group 2)", 3)
    write(repo, "pkg/new/x.py", "X = 1\n")
    c3 = _commit(repo, "feat(01): the new package (task group 3)", 4)
    case = base / "owner__drift"
    case.mkdir()
    subprocess.run(["git", "-C", str(repo), "bundle", "create", str(case / "repo.bundle"), "main"],
                   check=True, capture_output=True)

    def finding(fid: str, description: str, artifact: str, check: dict, fix: str, touched: list[str]) -> dict:
        return {"id": fid, "spec": "01_x", "kind": "drift", "severity": "major", "description": description,
                "spec_ref": f"tasks.md:{fid}", "artifact_ref": artifact, "observed_sha": c0,
                "observed_at": "2026-09-01T10:00:00+00:00", "resolved_when": check,
                "label": {"resolved_by": fix, "touched_not_resolved": touched}}

    (case / "drift.json").write_text(json.dumps({
        "repository": "owner/drift", "line": [c0, c1, c2, c3],
        "specs": [{"spec": "01_x", "spec_sha": c0, "groups": [
            {"group": "1", "commits": [{"sha": c1}]}, {"group": "2", "commits": [{"sha": c2}]},
            {"group": "3", "commits": [{"sha": c3}]}]}],
        "findings": [
            finding("01-F01", "pyproject.toml does not declare tree-sitter-go", "pyproject.toml",
                    {"file_contains": {"path": "pyproject.toml", "pattern": "tree-sitter-go"}}, c2, [c1]),
            finding("01-F02", "pkg/new/ does not exist", "pkg/new/", {"path_exists": "pkg/new/"}, c3, []),
        ]}), encoding="utf-8")
    return case


def _rows(result: Result) -> dict[str, list[str]]:
    out = {}
    for line in result.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == len(ed.DRIFT_HEADERS) and cells[0] != "policy" and not cells[0].startswith("---"):
            out[cells[0]] = cells[1:8]
    return out


def test_the_drift_case_per_policy(case_dir: Path, ledger_dsn: str) -> None:
    policies = ["default (spec commit's date)", "Option A: retire on first touch", "Option C: last 2 task groups",
                "checks (resolved_when), default touch", "--touch flag", "--touch retire"]
    args = ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--markdown"]
    for p in policies:
        args += ["--policy", p]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = _rows(result)
    # columns: at the fix, early, late, never, kept, precision, recall
    # the shipped touch mode of drift is flag: a touch retires no unchecked finding
    assert rows["default (spec commit's date)"] == ["0", "0", "0", "2", "0", "–", "0%"]
    # retire on touch: the version bump touched pyproject.toml and retires F01 there, while still true
    assert rows["--touch retire"] == ["1", "1", "0", "0", "0", "50%", "50%"]
    assert rows["Option A: retire on first touch"] == ["1", "1", "0", "0", "0", "50%", "50%"]
    # group 2 begins at the fix of F01: F02 leaves the prompts while still true
    assert rows["Option C: last 2 task groups"] == ["1", "1", "0", "0", "0", "50%", "50%"]
    # the checks: the bump's tree fails F01's check, the fix's holds; F02 holds when pkg/new/ appears
    assert rows["checks (resolved_when), default touch"] == ["2", "0", "0", "0", "0", "100%", "100%"]
    # flag never retires an unchecked finding
    assert rows["--touch flag"] == ["0", "0", "0", "2", "0", "–", "0%"]
    assert "drift case owner__drift: 4 commits, 1 specs, 2 findings (2 labelled fixes), 6 policies" in result.stdout


def test_a_custom_touch_policy_and_mistakes(case_dir: Path, ledger_dsn: str) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--markdown",
                                       "--touch", "recheck"])
    assert result.exit_code == 0, result.output
    assert _rows(result)["custom: touch=recheck"] == ["0", "0", "0", "2", "0", "–", "0%"]
    bad = CliRunner().invoke(main, ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--policy", "nope"])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: unknown policy 'nope'")
    assert len(bad.stderr.splitlines()) == 1
