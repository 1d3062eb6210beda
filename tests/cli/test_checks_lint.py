"""findings-ledger checks lint REVIEW --repo R --at SHA: each check of a
drift review evaluated by the ledger (ledger.lint_check, ledger._eval_check)
on the tree of SHA in a git repository built here with real git: a check
that holds already and one the ledger refuses are errors (exit 1), a
dialect rewrite and a stub-satisfiable file_contains are warnings; a bad
repository, commit or review is one error line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from support.gitrepo import git, write

import findings_ledger as fl
from findings_ledger import checks
from findings_ledger.cli import main

#: what a check writes to say "and not a stub" (docs/checks.md, rule 3)
STUB_MARKERS = r"(?n)^\s*(pass|raise NotImplementedError|\.\.\.)\s*$|TODO|todo!|panic\(|throw new"


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    write(r, "pkg/app.py", "from pkg import nightshift\n\nAPP = register('night-shift')\n")
    write(r, "pkg/nightshift.py", "def run():\n    pass\n")
    write(r, "pyproject.toml", "[tool.uv.workspace]\nmembers = []\n")
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "spec tree")
    return r, git(r, "rev-parse", "HEAD")


def review(tmp_path: Path, *checks_: Any) -> Path:
    path = tmp_path / "review.json"
    path.write_text(json.dumps({"drift_findings": [
        {"severity": "major", "description": f"finding {i}", "spec_ref": f"tasks.md:{i}", "artifact_ref": "pkg/",
         **({"resolved_when": c} if c is not None else {})} for i, c in enumerate(checks_)]}), encoding="utf-8")
    return path


def lint(dsn: str, path: Path, repo: Path, sha: str) -> Any:
    return CliRunner().invoke(main, ["checks", "lint", str(path), "--repo", str(repo), "--at", sha, "--dsn", dsn])


def test_good_checks_pass_and_each_problem_is_one_line(ledger_dsn: str, tmp_path: Path,
                                                       repo: tuple[Path, str]) -> None:
    r, sha = repo
    path = review(
        tmp_path,
        {"path_exists": "packages/nightshift/"},                                        # 0: false now: fine
        {"path_absent": "pkg/nightshift.py"},                                           # 1: fine
        {"file_lacks": {"path": "pkg/app.py", "pattern": r"\bnightshift\b"}},           # 2: rewritten \b
        {"file_lacks": {"path": "pkg/app.py", "pattern": "registers_skeptic"}},         # 3: holds already
        {"file_contains": {"path": "pkg/tasks.py", "pattern": r"def extract_knowledge\("}},  # 4: a stub does it
        {"all": [{"file_contains": {"path": "pkg/tasks.py", "pattern": r"def extract_knowledge\("}},
                 {"file_lacks": {"path": "pkg/tasks.py", "pattern": STUB_MARKERS}}]},          # 5: fine
        {"file_contains": {"path": "pkg/app.py", "pattern": r"\p{L}+_night"}},          # 6: refused
        None,                                                                           # 7: no check
    )
    out = lint(ledger_dsn, path, r, sha[:10])
    assert out.exit_code == 1, out.output
    lines = out.stdout.splitlines()
    assert lines[0] == ("review.json: warning: $.drift_findings[2].resolved_when.file_lacks: \\b (a word boundary; "
                        "ARE reads a backspace) at character 1 is stored as \\y")
    assert lines[1].endswith("at character 13 is stored as \\y")
    lines.pop(1)
    assert lines[1].startswith("review.json: error: $.drift_findings[3].resolved_when: holds already on this tree "
                               "(file_lacks): it would retire the finding")
    assert lines[2].startswith("review.json: warning: $.drift_findings[4].resolved_when.file_contains: a stub "
                               'satisfies it: with "def extract_knowledge(*args, **kwargs):\\n    pass" (python-pass) '
                               "appended to pkg/tasks.py the check holds")
    assert lines[3].startswith("review.json: error: $.drift_findings[6].resolved_when.file_contains.pattern: "
                               "E'\\\\p{L}+_night' uses what PostgreSQL regular expressions (ARE) do not have: ")
    assert lines[3].endswith("[LD105]") and "\\p{L} (a Unicode property) at character 1" in lines[3]
    assert lines[4] == f"review.json: 7 check(s) at {sha[:12]}: 2 error(s), 3 warning(s)"
    assert len(lines) == 5
    assert out.stderr == f"error: review.json: 2 check(s) would be wrong at {sha[:12]}\n"


def test_a_clean_review_exits_0_and_the_tree_decides(ledger_dsn: str, tmp_path: Path,
                                                     repo: tuple[Path, str]) -> None:
    r, sha = repo
    path = review(tmp_path, {"file_contains": {"path": "pyproject.toml", "pattern": r"(?n)^members.*nightshift"}})
    out = lint(ledger_dsn, path, r, "HEAD")
    assert out.exit_code == 0, out.output
    assert out.stdout == f"review.json: 1 check(s) at {sha[:12]}: 0 error(s), 0 warning(s)\n"
    # the next commit fixes it: on that tree the same check holds already
    write(r, "pyproject.toml", '[tool.uv.workspace]\nmembers = ["packages/nightshift"]\n')
    git(r, "commit", "-q", "-am", "add the workspace member")
    out = lint(ledger_dsn, path, r, "HEAD")
    assert out.exit_code == 1 and "holds already on this tree (file_contains)" in out.stdout


def test_the_ledger_is_left_as_it_was(ledger_dsn: str, ledger_conn: psycopg.Connection[Any], tmp_path: Path,
                                      repo: tuple[Path, str]) -> None:
    r, sha = repo
    before = ledger_conn.execute("SELECT (SELECT count(*) FROM ledger.finding), (SELECT count(*) FROM ledger.scope)"
                                 ).fetchone()
    _, count, problems = checks.lint_review(ledger_conn, review(tmp_path, {"path_exists": "pkg/"}), r, sha)
    assert count == 1 and [(p.where, p.level) for p in problems] == [("$.drift_findings[0].resolved_when", "error")]
    assert ledger_conn.execute("SELECT (SELECT count(*) FROM ledger.finding), (SELECT count(*) FROM ledger.scope)"
                               ).fetchone() == before


@pytest.mark.parametrize(("case", "message"), [
    ("not-a-repo", "error: commit 'HEAD' cannot be read in "),
    ("unknown-sha", "error: commit 'deadbeef' cannot be read in "),
    ("not-json", "error: review.json is not a drift review: "),
    ("no-review", "error: cannot read "),
])
def test_a_bad_repository_commit_or_review_is_one_error_line(ledger_dsn: str, tmp_path: Path,
                                                             repo: tuple[Path, str], case: str, message: str) -> None:
    r, _ = repo
    path = review(tmp_path, {"path_exists": "a/"})
    sha = "deadbeef" if case == "unknown-sha" else "HEAD"
    where = tmp_path / "plain" if case == "not-a-repo" else r
    where.mkdir(exist_ok=True)
    if case == "not-json":
        path.write_text("{oops", encoding="utf-8")
    if case == "no-review":
        path = tmp_path / "missing.json"
    out = lint(ledger_dsn, path, where, sha)
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr.startswith(message) and out.stderr.count("\n") == 1, out.stderr


def test_lint_check_is_one_sql_call_for_a_service(ledger_conn: psycopg.Connection[Any]) -> None:
    rows = ledger_conn.execute(
        "SELECT level, part, problem FROM ledger.lint_check(%s, %s)",
        (json.dumps({"any": [{"path_exists": "a/"}, {"file_contains": {"path": "b.py", "pattern": "class Sleeper"}}]}),
         json.dumps({"a/": None, "b.py": "import os\n"}))).fetchall()
    assert rows == [("warning", "any[1].file_contains",
                     'a stub satisfies it: with "class Sleeper:\\n    pass" (python-class) appended to b.py the check '
                     "holds; add a file_lacks of the stub, or match the behaviour instead")]
    assert fl.PatternDialect.sqlstate == "LD105"
