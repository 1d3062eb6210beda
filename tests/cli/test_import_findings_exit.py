"""``import-findings`` on a source that yields nothing is bad input: one
``error:`` line naming the file and what is wrong with it, exit 1, nothing
imported, and no Python internals in the message (docs/cli.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

CLI = Path(sys.executable).with_name("findings-ledger")

CASES = [
    ("malformed.json", '{"drift_findings": [',
     "malformed.json: not a drift review: malformed JSON at line 1 column 21"),
    ("list.json", "[1, 2]",
     'list.json: not a drift review: expected an object {"drift_findings": [...]}, got an array'),
    ("other.json", '{"findings": []}', "got no drift_findings"),
    ("shape.json", '{"drift_findings": {"a": 1}}', "got drift_findings is an object"),
    ("entries.json", '{"drift_findings": [1]}', "entries.json#drift_findings[0]: entry is not an object"),
    ("binary.json", b"\xff\xfe\x00\x01", "binary.json: not a drift review: the file is not UTF-8 text"),
    ("2026-01-02-binary.md", b"---\ntitle: \xff\xfe\n---\n", "2026-01-02-binary.md: the file is not UTF-8 text"),
    ("notes.md", "# not a findings file name\n", "notes.md: the name is not YYYY-MM-DD-<slug>.md"),
    ("data.csv", "a,b\n1,2\n", "data.csv: not a findings source: import-findings reads a findings directory"),
]


def run(args: list[str], dsn: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], env={**os.environ, "LEDGER_DSN": dsn, "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("name", "content", "message"), CASES, ids=[c[0] for c in CASES])
def test_one_file_that_yields_nothing_exits_1(ledger_dsn: str, tmp_path: Path, name: str, content: str | bytes,
                                              message: str) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    proc = run(["import-findings", str(path), "--scope", "s"], ledger_dsn)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
    for internal in ("Traceback", "TypeError", "KeyError", "list indices", "JSONDecodeError", "codec"):
        assert internal not in proc.stderr
    assert proc.stdout == ""
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_a_directory_whose_every_file_is_skipped_exits_1(ledger_dsn: str, tmp_path: Path) -> None:
    (tmp_path / "2026-01-02-a.md").write_bytes(b"---\ntitle: [unclosed\n---\n")
    (tmp_path / "2026-01-03-b.md").write_text("---\ndate: whenever\ntitle: b\n---\n", encoding="utf-8")
    proc = run(["import-findings", str(tmp_path), "--scope", "s"], ledger_dsn)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["skipped", "skipped", "error"], lines
    assert lines[-1] == f"error: nothing imported from {tmp_path}: 2 skipped"


def test_a_partly_good_source_still_exits_0(ledger_dsn: str, tmp_path: Path) -> None:
    (tmp_path / "2026-01-02-a.md").write_text("---\ntitle: a is stale\npaths: [a.py]\n---\n", encoding="utf-8")
    (tmp_path / "2026-01-03-b.md").write_bytes(b"---\ntitle: [unclosed\n---\n")
    proc = run(["import-findings", str(tmp_path), "--scope", "s"], ledger_dsn)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("skipped: 2026-01-03-b.md: ")
    assert proc.stdout.strip().splitlines()[-1] == "scope s: 1 inserted, 0 updated, 0 unchanged, 0 retired, 1 skipped"
