"""Runs the pgTAP suite in tests/sql/: one pytest test per file, each on a
fresh database migrated to head (the findings_ledger plugin's
``ledger_dsn``) with ``CREATE EXTENSION pgtap``, through
``psql -X -v ON_ERROR_STOP=1 -f FILE``. A test fails on psql's exit status,
on any ``not ok``, on a missing plan or a plan that does not match the
assertions run, and on an assertion without a sentence-style description.

``make test-sql`` runs only this module; tools/ensure-pgtap.sh (run by
``make test`` and ``make test-sql``) installs pgTAP when it can."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from findings_ledger.testing.schema_dump import client_binary

SQL_TESTS = sorted(Path(__file__).resolve().parent.glob("*.sql"))

_PLAN = re.compile(r"^1\.\.(\d+)$")
_RESULT = re.compile(r"^(not )?ok (\d+)(?: - (.*))?$")


@dataclass
class Tap:
    plan: int | None = None
    results: list[tuple[bool, int, str]] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)


def parse_tap(output: str) -> Tap:
    """The plan, the results (ok, number, description) and the diagnostics of TAP output."""
    tap = Tap()
    for line in output.splitlines():
        if m := _PLAN.match(line):
            tap.plan = int(m[1])
        elif m := _RESULT.match(line):
            tap.results.append((m[1] is None, int(m[2]), (m[3] or "").strip()))
        elif line.startswith("#"):
            tap.diagnostics.append(line)
    return tap


def problems(tap: Tap) -> list[str]:
    """Everything that makes a TAP run a failure."""
    found = []
    if tap.plan is None:
        found.append("no plan (1..N) in the output")
    elif tap.plan != len(tap.results):
        found.append(f"planned {tap.plan} assertions, ran {len(tap.results)}")
    if [n for _, n, _ in tap.results] != list(range(1, len(tap.results) + 1)):
        found.append("assertion numbers are not 1..N in order")
    found += [f"not ok {n} - {d}" for ok, n, d in tap.results if not ok]
    found += [f"assertion {n} has no sentence-style description: {d!r}" for _, n, d in tap.results
              if not re.match(r"^[A-Za-z_].* .*[.)]$", d)]
    return found


@pytest.fixture
def pgtap_dsn(ledger_dsn: str) -> str:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pgtap")
        except psycopg.Error as exc:
            pytest.fail(
                "pgTAP is not available on the test server: run `make test` (tools/ensure-pgtap.sh installs "
                f"postgresql-<major>-pgtap when it can), or install it on $LEDGER_DSN's server. ({exc.sqlstate}: "
                f"{exc.diag.message_primary})",
                pytrace=False,
            )
    return ledger_dsn


@pytest.mark.parametrize("sql_file", SQL_TESTS, ids=[p.name for p in SQL_TESTS])
def test_pgtap_file(pgtap_dsn: str, sql_file: Path) -> None:
    proc = subprocess.run(
        [client_binary("psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", pgtap_dsn, "-f", str(sql_file)],
        capture_output=True,
        text=True,
    )
    tap = parse_tap(proc.stdout)
    found = problems(tap)
    if proc.returncode != 0:
        found.insert(0, f"psql exited {proc.returncode}: {proc.stderr.strip()}")
    assert not found, f"{sql_file.name}:\n  " + "\n  ".join(found + tap.diagnostics)


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("1..2\nok 1 - One is one.\nok 2 - Two is two.\n", []),
        ("1..2\nok 1 - One is one.\n", ["planned 2 assertions, ran 1"]),
        ("ok 1 - One is one.\n", ["no plan (1..N) in the output"]),
        ("1..1\nnot ok 1 - One is two.\n# Failed test 1\n", ["not ok 1 - One is two."]),
        ("1..1\nok 1\n", ["assertion 1 has no sentence-style description: ''"]),
    ],
    ids=["passing", "plan-mismatch", "no-plan", "not-ok", "no-description"],
)
def test_tap_parsing_catches_every_kind_of_failure(output: str, expected: list[str]) -> None:
    assert problems(parse_tap(output)) == expected
