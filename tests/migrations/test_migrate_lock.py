"""Migration runs against one database are serialised (migrations/env.py's
advisory lock): four ``findings-ledger migrate`` processes started while the
test holds the lock, on a fresh database or on one at the baseline, each say
on one line that they wait, and once it is released all exit 0 and leave it
at head. ``fl.migrate`` from four
processes likewise. A run that cannot get the lock in time fails with one
line and changes nothing."""

from __future__ import annotations

import subprocess
import sys
import time
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


def start_together(commands: list[list[str]], dsn: str, tmp_path: Path) -> list[subprocess.CompletedProcess[str]]:
    """Run ``commands`` at once while this test holds the migration lock, and
    release it only when every one of them says it waits: all of them then
    contend for it at the same moment, however staggered their start-up was
    on a loaded machine."""
    logs = [tmp_path / f"run{i}.err" for i in range(len(commands))]
    with psycopg.connect(dsn) as holder:
        holder.execute(f"SELECT pg_catalog.pg_advisory_xact_lock({MIGRATION_LOCK_KEY})")
        procs = []
        for command, log in zip(commands, logs, strict=True):
            with log.open("w") as err:  # the child has its own copy of the descriptor
                procs.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True))
        deadline = time.monotonic() + 300
        while not all(WAITING in log.read_text() for log in logs):
            assert time.monotonic() < deadline, [log.read_text() for log in logs]
            assert all(p.poll() is None for p in procs), [log.read_text() for log in logs]
            time.sleep(0.1)
    out = []
    for p, log in zip(procs, logs, strict=True):
        stdout, _ = p.communicate(timeout=600)
        out.append(subprocess.CompletedProcess(p.args, p.returncode, stdout, log.read_text()))
    return out


def assert_all_migrated(runs: list[subprocess.CompletedProcess[str]], dsn: str) -> None:
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stderr.strip() in ("", WAITING), run.stderr
    assert all(WAITING in r.stderr for r in runs)  # they did overlap: each waited
    assert version(dsn) == [fl.head_revision()]


@pytest.mark.parametrize("start", [None, "0001_baseline"])
def test_four_cli_migrates_at_once(ledger_database_factory: Callable[..., str], start: str | None,
                                   tmp_path: Path) -> None:
    dsn = ledger_database_factory(migrated=False)
    if start:
        fl.migrate(dsn, start)
    runs = start_together([[CLI, "migrate", "--dsn", dsn]] * 4, dsn, tmp_path)
    assert_all_migrated(runs, dsn)
    assert all(r.stdout.strip() == "migrated to head" for r in runs)


def test_four_api_migrates_at_once(ledger_database_factory: Callable[..., str], tmp_path: Path) -> None:
    dsn = ledger_database_factory(migrated=False)
    code = "import sys, findings_ledger as fl; fl.migrate(sys.argv[1])"
    assert_all_migrated(start_together([[sys.executable, "-c", code, dsn]] * 4, dsn, tmp_path), dsn)


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
