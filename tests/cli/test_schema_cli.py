"""findings-ledger schema: the JSON Schemas of the drift-review and
findings-file formats (package data, resolved_when included), valid draft
2020-12 schemas that the real corpus's drift entries and the shared seeds'
checks conform to, and --validate naming each problem's JSON path."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from support.corpus import CORPUS

from findings_ledger import formats, importers
from findings_ledger.cli import main

DRIFT_CASE = CORPUS / "agent-fox-dev__agent-fox-v2" / "drift.json"


@pytest.mark.parametrize("name", formats.NAMES)
def test_the_schema_is_printed_and_is_a_valid_schema(name: str) -> None:
    out = CliRunner().invoke(main, ["schema", name])
    assert out.exit_code == 0, out.output
    printed = json.loads(out.stdout)
    jsonschema.Draft202012Validator.check_schema(printed)
    assert printed == formats.schema(name)
    assert "resolved_when" in json.dumps(printed)


def test_reviewer_entries_with_checks_conform(tmp_path: Path) -> None:
    if not DRIFT_CASE.is_file():
        pytest.skip(f"{DRIFT_CASE} is not there (../shared/corpus next to the checkout, or $LEDGER_CORPUS)")
    case = json.loads(DRIFT_CASE.read_text(encoding="utf-8"))
    entries = [{k: f[k] for k in ("severity", "description", "spec_ref", "artifact_ref", "observed_at",
                                   "resolved_when")} for f in case["findings"]]
    assert formats.validate("drift-review", {"drift_findings": entries}) == []


def test_validate_names_each_problem(ledger_dsn: str, tmp_path: Path) -> None:
    review = tmp_path / "review.json"
    review.write_text(json.dumps({"drift_findings": [
        {"description": "ok", "resolved_when": {"path_exists": "pkg/"}},
        {"description": "two keys", "resolved_when": {"path_exists": "a", "path_absent": "b"}},
        {"description": "no pattern", "resolved_when": {"all": [{"file_contains": {"path": "f.py"}}]}},
    ]}), encoding="utf-8")
    problems = formats.validate("drift-review", json.loads(review.read_text()))
    # the entry that conforms has none; each of the others one, at the part of its check at fault
    assert [p.split(":")[0] for p in problems] == ["$.drift_findings[1].resolved_when",
                                                   "$.drift_findings[2].resolved_when.all[0].file_contains"]
    out = CliRunner().invoke(main, ["schema", "drift-review", "--validate", str(review), "--dsn", ledger_dsn])
    assert out.exit_code == 1
    assert out.stdout.splitlines()[0].startswith("review.json: $.drift_findings[1].resolved_when: ")
    assert out.stderr == (f"error: review.json does not conform to the drift-review schema "
                          f"({len(problems)} problem(s))\n")
    md = tmp_path / "2026-06-24-x.md"
    md.write_text("---\ntitle: X\nobserved_at: 2026-06-24\nresolved_when:\n  path_absent: old/\n---\n",
                  encoding="utf-8")
    ok = CliRunner().invoke(main, ["schema", "findings-file", "--validate", str(md), "--dsn", ledger_dsn])
    assert ok.exit_code == 0 and ok.stdout == "2026-06-24-x.md: conforms to the findings-file schema\n"


def test_the_checks_page_example_conforms_and_the_ledger_takes_it(ledger_conn: Any, tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "checks.md").read_text(encoding="utf-8")
    block = page.split("```json\n", 1)[1].split("```", 1)[0]
    review = json.loads(block)
    assert formats.validate("drift-review", review) == []
    path = tmp_path / "seed-07.json"
    path.write_text(block, encoding="utf-8")
    report = importers.import_findings(ledger_conn, "seed-07", path,
                                       observed_at=datetime(2026, 6, 24, tzinfo=timezone.utc))
    assert report.skipped == [] and len(report.imported) == 5  # every pattern compiles in PostgreSQL


def test_validate_runs_the_ledgers_own_check_of_each_pattern(ledger_dsn: str, tmp_path: Path) -> None:
    review = tmp_path / "review.json"
    review.write_text(json.dumps({"drift_findings": [
        {"description": "ok", "resolved_when": {"file_contains": {"path": "a.py", "pattern": "def a"}}},
        {"description": "python", "resolved_when": {"file_contains": {"path": "./a.py", "pattern": r"\bdef a\b"}}},
        {"description": "pcre", "resolved_when": {"all": [{"path_exists": "b/"},
                                                         {"file_lacks": {"path": "b.py", "pattern": r"x\p{L}"}}]}},
        {"description": "no compile", "resolved_when": {"file_lacks": {"path": "b.py", "pattern": "(x"}}},
    ]}), encoding="utf-8")
    assert formats.validate("drift-review", json.loads(review.read_text())) == []  # the schema cannot tell
    out = CliRunner().invoke(main, ["schema", "drift-review", "--validate", str(review), "--dsn", ledger_dsn])
    assert out.exit_code == 1, out.output
    lines = out.stdout.splitlines()
    assert lines[0].startswith("review.json: invalid $.drift_findings[2].resolved_when.all[1].file_lacks.pattern: ")
    assert r"\p{L} (a Unicode property) at character 2 (write a POSIX class" in lines[0]
    assert lines[0].endswith("[LD105]")
    assert lines[1].startswith("review.json: invalid $.drift_findings[3].resolved_when.file_lacks.pattern: ")
    assert lines[1].endswith("[LD003]")
    assert lines[2] == ('review.json: $.drift_findings[1].resolved_when: stored as '
                        '{"file_contains": {"path": "a.py", "pattern": "\\\\ydef a\\\\y"}}')
    assert len(lines) == 3
    assert out.stderr == "error: review.json does not conform to the drift-review schema (2 problem(s))\n"


#: resolved_when checks the ledger refuses with LD003, each at a JSON path of its own
BAD_CHECKS: list[Any] = [
    {"file_exists": "a.py"}, {"path_exists": "a", "path_absent": "b"}, {"all": [{"file_contains": {"path": "f.py"}}]},
    {"path_exists": 5}, {"any": []}, {"all": [{"path_exists": "a"}, {"file_lacks": {"path": 3, "pattern": "x"}}]},
    {"file_contains": {"path": "a", "pattern": ""}}, {"file_contains": "a"}, {"all": "x"}, "x",
    {"any": [{"nope": 1}]}, {"file_lacks": {"path": "a", "pattern": "x", "extra": 1}},
]


def test_validate_says_what_the_importer_says(ledger_conn: Any, tmp_path: Path) -> None:
    """``schema --validate`` names a bad check with the ledger's own words (JSON, not Python
    reprs): each problem is the importer's message for that entry, at the same JSON path."""
    review = {"drift_findings": [{"description": f"d{i}", "artifact_ref": "a.py", "resolved_when": check}
                                 for i, check in enumerate(BAD_CHECKS)]}
    path = tmp_path / "review.json"
    path.write_text(json.dumps(review), encoding="utf-8")
    report = importers.import_findings(ledger_conn, "s", path, observed_at=datetime(2026, 6, 24, tzinfo=timezone.utc))
    imported = {}
    for skipped in report.skipped:
        index = int(skipped.name.split("[")[1].rstrip("]"))
        assert skipped.reason.startswith("invalid finding.resolved_when") and skipped.reason.endswith(" [LD003]")
        imported[index] = skipped.reason[len("invalid finding."):-len(" [LD003]")]
    assert sorted(imported) == list(range(len(BAD_CHECKS)))
    validated = {}
    for problem in formats.validate("drift-review", review):
        index = int(problem.split("[")[1].split("]")[0])
        assert index not in validated, problem  # one problem per entry, as the ledger raises one
        validated[index] = problem.split("].", 1)[1]
    assert validated == imported


def test_what_only_the_schema_refuses_is_still_named() -> None:
    """An empty path is a valid check to the ledger's shape rules (its path rules refuse it):
    the schema's own problem is named, at the part at fault, in the same words."""
    assert formats.validate("drift-review", {"drift_findings": [
        {"description": "d", "resolved_when": {"path_exists": ""}},
        {"description": "d", "resolved_when": {"all": [{"path_absent": ""}]}},
    ]}) == [
        '$.drift_findings[0].resolved_when.path_exists: expected a non-empty string, got ""',
        '$.drift_findings[1].resolved_when.all[0].path_absent: expected a non-empty string, got ""',
    ]


def test_validate_shows_values_as_json(tmp_path: Path) -> None:
    problems = formats.validate("drift-review", {"drift_findings": [{"description": "d", "severity": 3},
                                                                    {"description": "", "expects": "gone"}],
                                                 "task_group": ["g"]})
    assert problems == [
        "$.drift_findings[0].severity: expected a string, got number 3",
        "$.drift_findings[1].description: expected a non-empty string, got \"\"",
        "$.drift_findings[1].expects: \"gone\" is not one of \"change\", \"present\", \"absent\"",
        "$.task_group: expected a string, got array [\"g\"]",
    ]
