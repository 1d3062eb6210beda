"""Migration runs against one database are serialised (migrations/env.py's
advisory lock): four ``findings-ledger migrate`` processes started together
on a fresh database, or on one at the baseline, all exit 0 and leave it at
head; the ones that waited say so on one line. ``fl.migrate`` from four
processes likewise. A run that cannot get the lock in time fails with one
line and changes nothing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

import findings_ledger as fl
from findings_ledger.migration_ops import MIGRATION_LOCK_KEY

CLI = str(Path(sys.executable).with_name("findings-ledger"))
WAITING = ("findings-ledger migrations: another migration of this database holds the migration lock: "
           "waiting up to 10min for it to finish")


def version(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        return [r[0] for r in conn.execute("SELECT version_num FROM ledger.alembic_version")]


def start_together(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in commands]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr))
    return out


def assert_all_migrated(runs: list[subprocess.CompletedProcess[str]], dsn: str) -> None:
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stderr.strip() in ("", WAITING), run.stderr
    assert sum(WAITING in r.stderr for r in runs) >= 1  # they did overlap: someone waited
    assert version(dsn) == [fl.head_revision()]


@pytest.mark.parametrize("start", [None, "0001_baseline"])
def test_four_cli_migrates_at_once(ledger_database_factory: Callable[..., str], start: str | None) -> None:
    dsn = ledger_database_factory(migrated=False)
    if start:
        fl.migrate(dsn, start)
    runs = start_together([[CLI, "migrate", "--dsn", dsn]] * 4)
    assert_all_migrated(runs, dsn)
    assert all(r.stdout.strip() == "migrated to head" for r in runs)


def test_four_api_migrates_at_once(ledger_database_factory: Callable[..., str]) -> None:
    dsn = ledger_database_factory(migrated=False)
    code = "import sys, findings_ledger as fl; fl.migrate(sys.argv[1])"
    assert_all_migrated(start_together([[sys.executable, "-c", code, dsn]] * 4), dsn)


def test_a_run_that_cannot_get_the_lock_fails_with_one_line_and_changes_nothing(
        ledger_database_factory: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    dsn = ledger_database_factory(migrated=False)
    with psycopg.connect(dsn) as holder:
        holder.execute(f"SELECT pg_catalog.pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        monkeypatch.setenv("LEDGER_MIGRATION_LOCK_TIMEOUT", "1s")
        run = subprocess.run([CLI, "migrate", "--dsn", dsn], capture_output=True, text=True, timeout=120)
        with pytest.raises(fl.MigrationLocked, match="held the migration lock for longer than 1s") as info:
            fl.migrate(dsn)
        assert info.value.sqlstate == "55P03"
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert lines[0].startswith("findings-ledger migrations: another migration of this database holds")
    assert lines[1:] == ["error: another migration of this database held the migration lock for longer than 1s "
                         "(-x migration_lock_timeout=... / LEDGER_MIGRATION_LOCK_TIMEOUT): nothing was changed "
                         "[55P03]"]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT to_regnamespace('ledger')").fetchone() == (None,)
