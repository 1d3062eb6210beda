"""A service that only has psql gets exactly what the Python API gets.

One fresh database is written by the real ``psql`` binary running
docs/examples/service.sql (the example of docs/sql.md: INSERT findings, INSERT
merges with ON CONFLICT DO NOTHING, a redelivery, SELECT from
ledger.active_finding); an identical fresh database is written through the
Python API. Both must end with the same active findings, finding states and
audit, id for id. docs/sql.md must show that file and its real psql output
(tests/tooling/test_doc_examples.py checks every other example the same way)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.testing.schema_dump import client_binary

ROOT = Path(__file__).resolve().parents[2]
SERVICE_SQL = ROOT / "docs" / "examples" / "service.sql"

SCOPE = "07_nightshift"
REVIEW = [
    ("F01", "high", "The packages/nightshift/ directory does not exist.", ["packages/nightshift/"]),
    ("F03", "high", "packages/af/af/app.py imports and registers night-shift.", ["./packages/af/af/app.py:88"]),
    ("F04", "medium", "Night-shift tests have not been migrated.", ["packages\\af\\tests\\test_nightshift.py"]),
    ("F11", "low", "The README quick start still runs `af night-shift`.", ["README.md"]),
    ("F12", "low", "No migration note for users of `af night-shift`.", []),
]
MERGES = [
    ("342b7a0b9ad4", "07_nightshift:2", "Remove night-shift from the af CLI",
     ["packages/af/af/nightshift.py", "packages/af/af/app.py"]),
    ("ad342a91c0de", "07_nightshift:3", "Scaffold packages/nightshift",
     ["packages/nightshift/pyproject.toml", "pyproject.toml"]),
    ("342b7a0b9ad4", "07_nightshift:2", "Remove night-shift from the af CLI",
     ["packages/af/af/app.py", "packages/af/af/nightshift.py"]),  # redelivery
]  # fmt: skip

ACTIVE_JSON = """
SELECT coalesce(json_agg(a ORDER BY a.id), '[]')
  FROM (SELECT id, scope, finding_key, kind, severity, title, description, paths, source
          FROM ledger.active_finding) a
"""
FINDINGS_JSON = """
SELECT coalesce(json_agg(f ORDER BY f.id), '[]')
  FROM (SELECT id, superseded_at IS NOT NULL AS superseded, superseded_by, superseded_by_merge_id, supersede_rule
          FROM ledger.finding) f
"""
AUDIT_JSON = """
SELECT coalesce(json_agg(a ORDER BY a.id), '[]')
  FROM (SELECT id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason, commit_sha, subject
          FROM ledger.read_audit('07_nightshift')) a
"""


def psql(dsn: str, *args: str) -> str:
    proc = subprocess.run(
        [client_binary("psql"), "-X", "-v", "ON_ERROR_STOP=1", "-d", dsn, *args],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PGCLIENTENCODING": "UTF8"},
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def psql_json(dsn: str, query: str) -> Any:
    return json.loads(psql(dsn, "-A", "-t", "-c", query))


def without_created_at(rows: list[Any]) -> list[dict[str, Any]]:
    """The rows as dicts, without wall-clock columns (and the fields only
    read_prompt_findings fills in an ActiveFinding)."""
    out = []
    for row in rows:
        d = dataclasses.asdict(row)
        d.pop("created_at")
        if isinstance(row, fl.ActiveFinding):
            assert d.pop("observed_at") is None and d.pop("task_group") is None
            assert (d.pop("touched_count"), d.pop("touched_by"), d.pop("touch_lines")) == (0, (), ())
        out.append(d)
    return out


def write_with_python(dsn: str) -> list[fl.MergeResult]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        retire_drift_on_touch(conn, SCOPE)  # as service.sql's scope row: touch retire for kind drift
        for key, severity, title, paths in REVIEW:
            fl.add_finding(
                conn, SCOPE, title, paths=paths, kind="drift", severity=severity, finding_key=key,
                source="07_nightshift:0",
            )  # fmt: skip
        return [
            fl.record_merge(conn, SCOPE, sha, paths, message=message, node_id=node)
            for sha, node, message, paths in MERGES
        ]


def test_psql_service_gets_what_the_python_api_gets(ledger_dsn_factory: Callable[[], str]) -> None:
    via_psql, via_python = ledger_dsn_factory(), ledger_dsn_factory()

    output = psql(via_psql, "-f", str(SERVICE_SQL))
    results = write_with_python(via_python)

    assert [r.recorded for r in results] == [True, True, False]
    with psycopg.connect(via_python) as conn:
        active = without_created_at(fl.active_findings(conn, SCOPE))
        audit = without_created_at(fl.read_audit(conn, SCOPE))

    assert psql_json(via_psql, ACTIVE_JSON) == sorted(active, key=lambda r: r["id"])
    assert psql_json(via_psql, AUDIT_JSON) == audit
    assert psql_json(via_psql, FINDINGS_JSON) == psql_json(via_python, FINDINGS_JSON)

    # and what that is: F03 and F01 superseded, F04 (its path normalised), F11 and F12 active
    assert [(r["finding_key"], r["paths"]) for r in psql_json(via_psql, ACTIVE_JSON)] == [
        ("F04", ["packages/af/tests/test_nightshift.py"]),
        ("F11", ["README.md"]),
        ("F12", []),
    ]
    assert [(a["finding_id"], a["action"], a["evidence"]) for a in audit] == [
        (2, "superseded", "packages/af/af/app.py"),
        (1, "superseded", "packages/nightshift/pyproject.toml"),
    ]
    assert "INSERT 0 5\nINSERT 0 2\nINSERT 0 0\n" in output


def test_the_docs_show_the_service_sql_and_its_real_psql_output(ledger_dsn: str) -> None:
    page = (ROOT / "docs" / "sql.md").read_text(encoding="utf-8")
    assert SERVICE_SQL.read_text(encoding="utf-8").strip() in page
    output = psql(ledger_dsn, "-f", str(SERVICE_SQL))

    def rstrip_lines(text: str) -> str:
        return "\n".join(line.rstrip() for line in text.strip().splitlines())

    assert rstrip_lines(output) in rstrip_lines(page)
