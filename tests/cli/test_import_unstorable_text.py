"""A NUL character or a lone surrogate anywhere in an import (a drift review,
a findings file, a SARIF log) is text PostgreSQL cannot store: the import is
refused before anything is written, with one ``error:`` line naming the file,
the entry and the JSON path, and nothing of the file is in the ledger."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

CLI = Path(sys.executable).with_name("findings-ledger")


def _entry(name: str) -> str:
    return json.dumps({"severity": "high", "description": f"{name} drifted", "spec_ref": "spec", "artifact_ref": name})


def _drift(middle: str, top: str = "") -> str:
    return '{' + top + '"drift_findings": [' + _entry("a.py") + ", " + middle + ", " + _entry("c.py") + "]}"


def _sarif(text_json: str) -> str:
    def result(text: str, uri: str) -> str:
        return ('{"ruleId": "R", "message": {"text": ' + text + '}, "partialFingerprints": {"h": ' + json.dumps(uri)
                + '}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": ' + json.dumps(uri) + "}}}]}")
    results = ", ".join([result('"fine"', "a.py"), result(text_json, "b.py"), result('"fine"', "c.py")])
    return '{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "semgrep"}}, "results": [' + results + "]}]}"


CASES = [
    ("review.json", _drift('{"description": "bad\\u0000entry", "artifact_ref": "b.py"}'),
     "review.json#drift_findings[1]: $.drift_findings[1].description: a NUL character (U+0000)"),
    ("review.json", _drift('{"description": "bad\\ud800entry", "artifact_ref": "b.py"}'),
     "review.json#drift_findings[1]: $.drift_findings[1].description: a lone surrogate (U+D800)"),
    ("review.json", _drift('{"description": "b", "tags\\u0000": 1}'),
     "review.json#drift_findings[1]: $.drift_findings[1]: a NUL character (U+0000) in the key 'tags\\x00'"),
    ("review.json", _drift('{"description": "b", "resolved_when": {"path_exists": ["x\\udc80"]}}'),
     "review.json#drift_findings[1]: $.drift_findings[1].resolved_when.path_exists[0]: a lone surrogate (U+DC80)"),
    ("review.json", _drift('{"description": "fine"}', top='"task_group": "g\\u0000", '),
     "review.json: $.task_group: a NUL character (U+0000)"),
    ("2026-01-01-nul.md", '---\ntitle: "bad\\0 title"\n---\n', "2026-01-01-nul.md: $.title: a NUL character (U+0000)"),
    ("2026-01-01-body.md", "---\ntitle: fine\n---\nthe body \x00 here\n",
     "2026-01-01-body.md: the body: a NUL character (U+0000)"),
    ("run.sarif", _sarif('"bad\\u0000text"'), "run.sarif: $.runs[0].results[1].message.text: a NUL character (U+0000)"),
    ("run.sarif", _sarif('"bad\\udfffext"'), "run.sarif: $.runs[0].results[1].message.text: a lone surrogate (U+DFFF)"),
]


@pytest.mark.parametrize(("name", "content", "message"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_unstorable_text_is_refused_before_anything_is_written(ledger_dsn: str, tmp_path: Path, name: str,
                                                              content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    proc = subprocess.run([str(CLI), "import-findings", str(path), "--scope", "s", "--root", str(tmp_path)],
                          env={**os.environ, "LEDGER_DSN": ledger_dsn, "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
    assert "PostgreSQL text cannot store" in lines[0] or "not a Unicode character" in lines[0]
    assert "database" not in lines[0] and "codec" not in lines[0]
    assert proc.stdout == ""
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM ledger.scope").fetchone() == (0,)
