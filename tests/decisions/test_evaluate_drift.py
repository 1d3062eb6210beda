"""evaluate on a drift case (drift.json + repo.bundle): the bundle cloned at
run time, the line replayed through replay-git's reader and writer, the
reviews imported with the spec commit's date, each policy counted as at the
fix / early / late / never; built here from a real temporary repository."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result
from support.corpus import CORPUS
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
    write(repo, "README.md", "docs\n")
    c4 = _commit(repo, "docs(01): the README (task group 4)", 5)  # touches no finding's path
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
        "repository": "owner/drift", "line": [c0, c1, c2, c3, c4],
        "specs": [{"spec": "01_x", "spec_sha": c0, "groups": [
            {"group": "1", "commits": [{"sha": c1}]}, {"group": "2", "commits": [{"sha": c2}]},
            {"group": "3", "commits": [{"sha": c3}]}, {"group": "4", "commits": [{"sha": c4}]}]}],
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
    assert "drift case owner__drift: 5 commits, 1 specs, 2 findings (2 labelled fixes), 6 policies" in result.stdout


def test_a_custom_touch_policy_and_mistakes(case_dir: Path, ledger_dsn: str) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--markdown",
                                       "--touch", "recheck"])
    assert result.exit_code == 0, result.output
    assert _rows(result)["custom: touch=recheck"] == ["0", "0", "0", "2", "0", "–", "0%"]
    bad = CliRunner().invoke(main, ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--policy", "nope"])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: unknown policy 'nope'")
    assert len(bad.stderr.splitlines()) == 1


VERIFIER = "default + verifier at each prompt read (oracle)"
VERIFIER_CHECKS = "checks + verifier at each prompt read (oracle)"


def test_the_read_time_oracle_gives_verdicts_at_each_prompt_read(case_dir: Path, ledger_conn: psycopg.Connection
                                                                 ) -> None:
    case = ed.load_drift_case(case_dir)
    _, c1, c2, c3, _ = case.line
    assert case.read_points() == [1, 2, 3, 4]  # the first commit of each task group: the prompt before it
    policy = next(p for p in ed.DRIFT_POLICIES if p.name == VERIFIER)
    ev = ed.evaluate_drift(ledger_conn, case, [policy], run_id="oracle")
    by = {o.finding.id: o for o in ev.outcomes}
    # F01: the version bump flags it; group 2's prompt shows it possibly resolved by the bump, the label says
    # fixed later: still true (the flag clears); the fix flags it again, group 3's prompt: resolved, by the fix
    assert by["01-F01"].verdicts == ("still_true", "resolved")
    assert (by["01-F01"].superseded_by, by["01-F01"].rule) == (c2, "verified")
    # F02: the new package flags it, group 4's prompt: resolved by it
    assert by["01-F02"].verdicts == ("resolved",)
    assert (by["01-F02"].superseded_by, by["01-F02"].rule) == (c3, "verified")
    # the verdicts as the ledger audited them, each judging the latest touch the prompt showed
    audit = ledger_conn.execute(
        "SELECT f.finding_key, a.action, a.actor, m.commit_sha FROM ledger.supersession a "
        "JOIN ledger.finding f ON f.id = a.finding_id JOIN ledger.merge m ON m.id = a.merge_id "
        "WHERE a.scope = 'eval-oracle-drift-p0' AND a.rule = 'verified' ORDER BY a.id").fetchall()
    assert [(a, who, sha) for _, a, who, sha in audit] == [
        ("verified_still_true", ed.ORACLE, c1), ("superseded", ed.ORACLE, c2), ("superseded", ed.ORACLE, c3)]
    assert ev.counts(VERIFIER) == {"fix": 2, "early": 0, "late": 0, "never": 0, "kept": 0}
    assert ev.verdicts(VERIFIER) == {"resolved": 2, "still_true": 1}
    assert ev.verdicts_unflagged(VERIFIER) == 0
    # the prompts: group 3's carries F02 only (F01 verified away), never a stale finding
    assert [(at, stale) for at, _, stale in ev.stale_shares(VERIFIER)] == [(1, 0), (2, 0), (3, 0), (4, 0)]
    chars = {f.id: len(f.description) for f in case.findings}
    assert [c for _, c, _ in ev.stale_shares(VERIFIER)] == [chars["01-F01"] + chars["01-F02"]] * 2 + [
        chars["01-F02"], 0]
    assert all(t.holds for t in ed.drift_targets(ev))


def test_the_oracle_rows_and_their_targets(case_dir: Path, ledger_dsn: str) -> None:
    result = CliRunner().invoke(main, ["evaluate", str(case_dir), "--dsn", ledger_dsn, "--markdown",
                                       "--policy", VERIFIER, "--policy", VERIFIER_CHECKS, "--policy", "--touch flag"])
    assert result.exit_code == 0, result.output
    rows = {}
    for line in result.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == len(ed.DRIFT_HEADERS):
            rows[cells[0]] = dict(zip(ed.DRIFT_HEADERS, cells, strict=True))
    counts = ["at the fix", "early (still true)", "late", "never retired", "kept (still true)", "precision", "recall"]
    verdicts, stale, first = ed.DRIFT_HEADERS[-3:]
    assert [rows[VERIFIER][h] for h in counts] == ["2", "0", "0", "0", "0", "100%", "100%"]
    assert (rows[VERIFIER][verdicts], rows[VERIFIER][stale], rows[VERIFIER][first]) == (
        "3 (2, 1)", "0.0%, 0.0%", "2 (100%, 100%)")
    assert [rows[VERIFIER_CHECKS][h] for h in counts] == ["2", "0", "0", "0", "0", "100%", "100%"]
    # a checked finding is flagged only where its check fails on a touch (F01 at the version bump): the
    # reader is asked once and finds it still true; the fix's tree then holds the check
    assert (rows[VERIFIER_CHECKS][verdicts], rows[VERIFIER_CHECKS][stale]) == ("1 (0, 1)", "0.0%, 0.0%")
    # without a verifier, flag keeps both fixed findings: group 3's prompt is 46 of its 69 characters stale
    # (F01), group 4's all of them: mean (0 + 0 + 46/69 + 1) / 4
    assert (rows["--touch flag"][verdicts], rows["--touch flag"][stale], rows["--touch flag"][first]) == (
        "–", "100.0%, 41.7%", "0 (–, 0%)")
    assert (f"target ({VERIFIER}): recall >= 95%: 100% at read time (100% at the labelled commit): holds yes"
            in result.stdout)
    assert f"target ({VERIFIER}): verdicts asked only for flagged findings: 3 verdicts, 0 on unflagged findings: " \
           "holds yes" in result.stdout
    assert (f"target ({VERIFIER_CHECKS}): precision >= 97%: 100% at read time (100% at the labelled commit): "
            "holds yes") in result.stdout
    assert f"target ({VERIFIER_CHECKS}): no prompt read more than 10% stale: max 0.0%: holds yes" in result.stdout


def test_left_at_the_first_read_after_the_fix(case_dir: Path) -> None:
    """A verdict retires a finding by the latest touch its prompt showed: a later merge than the fix counts
    as on time when no prompt read lies between them."""
    case = ed.load_drift_case(case_dir)
    c0, c1, c2, c3, c4 = case.line
    f01 = next(f for f in case.findings if f.id == "01-F01")  # fixed by c2; reads before c1, c2, c3 and c4
    ev = ed.DriftEvaluation(case, ())

    def outcome(by: str | None) -> ed.DriftOutcome:
        return ed.DriftOutcome("p", f01, by, "verified" if by else None)

    assert ev.at_first_read(outcome(c2))
    late = dataclasses.replace(case, specs=tuple(dataclasses.replace(s, groups=s.groups[:2]) for s in case.specs))
    assert not ed.DriftEvaluation(case, ()).at_first_read(outcome(c3))  # the read before c3 carried it stale
    assert ed.DriftEvaluation(late, ()).at_first_read(outcome(c3))  # no read between c2 and c3
    assert not ev.at_first_read(outcome(c1))  # early
    assert not ev.at_first_read(outcome(None))


SHARED_CASE = CORPUS / "agent-fox-dev__agent-fox-v2"


@pytest.mark.skipif(not (SHARED_CASE / "drift.json").is_file(),
                    reason=f"{SHARED_CASE} is not there (../shared/corpus next to the checkout, or $LEDGER_CORPUS)")
def test_the_oracle_on_the_shared_drift_case(ledger_conn: psycopg.Connection) -> None:
    case = ed.load_drift_case(SHARED_CASE)
    policy = next(p for p in ed.DRIFT_POLICIES if p.name == VERIFIER)
    ev = ed.evaluate_drift(ledger_conn, case, [policy], run_id="shared")
    index = case.index()
    by = {o.finding.id: o for o in ev.outcomes}
    verified = [o for o in ev.outcomes if o.rule == "verified"]
    # the loop retires nothing but by a verdict, never before the labelled fix, and asks only about
    # findings a merge flagged
    assert verified and all(o.rule == "verified" for o in ev.outcomes if o.superseded_by is not None)
    assert ev.counts(VERIFIER)["early"] == 0
    assert all(index[o.superseded_by] >= index[o.finding.resolved_by] for o in verified if o.superseded_by)
    assert ev.verdicts_unflagged(VERIFIER) == 0
    assert ev.verdicts(VERIFIER)["resolved"] == len(verified)
    # the prompts are read before the first commit of each of the 29 task groups; 106-F07 is fixed by the
    # line's last commit, after the last read, so no verdict can retire it; 103-F10 is still true at the end
    assert len(case.read_points()) == 29 and case.read_points()[-1] < index[by["106-F07"].finding.resolved_by]
    assert by["106-F07"].superseded_by is None and by["103-F10"].superseded_by is None
    assert by["103-F10"].finding.resolved_by is None
