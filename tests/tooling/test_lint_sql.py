"""squawk finds nothing in the offline script of any revision (the same
check as ``make lint``, so CI enforces it), and the configuration still
catches what it is there for. Every justified finding (tools/lint_sql.py)
is scoped to its revision and must still excuse a line: a stale
justification fails the lint too."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("lint_sql", ROOT / "tools" / "lint_sql.py")
assert _spec and _spec.loader
lint_sql = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lint_sql)


def test_squawk_passes_on_every_revision_up_and_down() -> None:
    code, report = lint_sql.lint()
    assert code == 0, f"squawk findings (fix them in a new revision, or justify them in tools/lint_sql.py):\n{report}"
    written = sorted(p.relative_to(lint_sql.OUT).as_posix() for p in lint_sql.OUT.rglob("*.sql"))
    expected = sorted(f"{d}/{rev}.sql" for _, rev in lint_sql.steps() for d in ("upgrade", "downgrade"))
    assert written == expected


def test_the_configuration_still_flags_blocking_ddl(tmp_path: Path) -> None:
    script = tmp_path / "bad.sql"
    script.write_text(
        "SET lock_timeout = '5s';\nSET statement_timeout = '30min';\nBEGIN;\n"
        "CREATE INDEX finding_title_idx ON ledger.finding (title);\n"
        "ALTER TABLE ledger.finding ALTER COLUMN title TYPE varchar(10);\n"
        "CREATE TABLE unqualified (id bigint PRIMARY KEY);\nCOMMIT;\n"
    )
    proc = subprocess.run(
        [lint_sql.squawk_binary(), "--config", str(ROOT / ".squawk.toml"), "--reporter=gcc", str(script)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 1
    rules = {line.split("warning: ")[1].split()[0] for line in proc.stdout.splitlines() if "warning: " in line}
    assert {"require-concurrent-index-creation", "changing-column-type", "require-table-schema"} <= rules


def test_a_justification_that_excuses_nothing_fails_the_lint(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = (None, lint_sql.re.compile(r"^CREATE TABLE ledger\.no_such_table"), "ban-drop-table", "stale")
    monkeypatch.setattr(lint_sql, "UPGRADE_IGNORES", [*lint_sql.UPGRADE_IGNORES, stale])
    code, report = lint_sql.lint()
    assert code == 1
    assert "unused ignore in tools/lint_sql.py: ban-drop-table for every revision" in report

