"""Importers read ``resolved_when`` (a drift-review entry's field, a findings
file's front matter) and write a bare date as ``observed_at_precision =
'day'``; a check the ledger refuses skips that entry with its LD error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg

from findings_ledger import importers

CHECK = {"all": [{"path_exists": "pkg/nightshift/"},
                 {"file_contains": {"path": "pyproject.toml", "pattern": "nightshift"}}]}


def _rows(conn: psycopg.Connection[Any], scope: str) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT title, resolved_when, observed_at_precision FROM ledger.finding "
                        "WHERE scope = %s ORDER BY id", (scope,)).fetchall()


def test_drift_review_entries_carry_their_checks(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    review = tmp_path / "review.json"
    review.write_text(json.dumps({"observed_at": "2026-04-13", "drift_findings": [
        {"severity": "major", "description": "no nightshift package", "spec_ref": "tasks.md:1",
         "artifact_ref": "pkg/nightshift/", "resolved_when": CHECK},
        {"severity": "minor", "description": "bad check", "spec_ref": "tasks.md:2", "artifact_ref": "a.py",
         "resolved_when": {"file_contains": {"path": "a.py", "pattern": "("}}},
    ]}), encoding="utf-8")
    report = importers.import_findings(ledger_conn, "chk-imp", review)
    assert [i.name for i in report.imported] == ["review.json#drift_findings[0]"]
    assert len(report.skipped) == 1 and report.skipped[0].name == "review.json#drift_findings[1]"
    assert "resolved_when" in report.skipped[0].reason and "[LD" in report.skipped[0].reason
    assert _rows(ledger_conn, "chk-imp") == [("no nightshift package", CHECK, "day")]


def test_findings_files_carry_their_checks(ledger_conn: psycopg.Connection[Any], tmp_path: Path) -> None:
    d = tmp_path / "findings"
    d.mkdir()
    (d / "2026-06-24-no-reviewer.md").write_text(
        "---\ntitle: No reviewer archetype\nkind: drift\npaths: [agent_fox/archetypes.py]\n"
        "observed_at: 2026-06-24T10:00:00Z\n"
        "resolved_when:\n  file_contains:\n    path: agent_fox/archetypes.py\n    pattern: '\"reviewer\"'\n---\n",
        encoding="utf-8")
    report = importers.import_findings(ledger_conn, "chk-md", d)
    assert report.skipped == []
    assert _rows(ledger_conn, "chk-md") == [
        ("No reviewer archetype", {"file_contains": {"path": "agent_fox/archetypes.py", "pattern": '"reviewer"'}},
         "instant")]
