"""The catalog lock (:func:`findings_ledger.testing.cluster.catalog_lock`)
keeps ``DROP DATABASE`` and a downgrade below the baseline apart on one
server: PostgreSQL's ``DROP ROLE`` fails with ``XX000 cache lookup failed
for database N`` when a database it found depending on the role is dropped
during its check, and under pytest-xdist another worker drops a test database
at any moment. Drops share the lock, a downgrade below the baseline holds it
alone."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from support.migrations import below_baseline

from findings_ledger.testing.cluster import ClusterError, catalog_lock, catalog_lock_path
from findings_ledger.testing.databases import janitor, unique_name


def can_take(server: dict[str, Any], flag: int) -> bool:
    """Whether another open file description gets the lock in mode ``flag`` now."""
    fd = os.open(catalog_lock_path(server), os.O_RDONLY)
    try:
        fcntl.flock(fd, flag | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_drops_share_the_lock_and_a_downgrade_below_the_baseline_holds_it_alone(
    ledger_server: dict[str, Any],
) -> None:
    with catalog_lock(ledger_server):
        assert can_take(ledger_server, fcntl.LOCK_SH)
        assert not can_take(ledger_server, fcntl.LOCK_EX)
    with below_baseline(make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})):
        assert not can_take(ledger_server, fcntl.LOCK_SH)
    assert freed(ledger_server), "the downgrade below the baseline kept the lock"


def freed(server: dict[str, Any], patience: float = 60.0) -> bool:
    """Whether the exclusive lock can be taken within ``patience`` seconds: on
    the shared server another pytest-xdist worker's drop may hold it shared for
    a moment."""
    deadline = time.monotonic() + patience
    while not can_take(server, fcntl.LOCK_EX):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_lock_file_is_per_server_and_the_dsn_names_the_same_one(ledger_server: dict[str, Any]) -> None:
    dsn = make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})
    assert catalog_lock_path(dsn) == catalog_lock_path(ledger_server)
    assert catalog_lock_path("host=db.example port=5433") != catalog_lock_path("host=db.example port=5432")
    socket = catalog_lock_path("host=/run/postgresql port=5432")
    assert socket.name == "findings-ledger-catalog-run_postgresql-5432.lock"


def test_a_janitor_drops_its_database_only_when_no_downgrade_below_the_baseline_runs(
    ledger_server: dict[str, Any],
) -> None:
    name = unique_name("ledger_lock")
    j = janitor(ledger_server, name)
    j.init()
    dropped = threading.Event()
    admin = make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})
    with below_baseline(admin):
        worker = threading.Thread(target=lambda: (j.drop(), dropped.set()))
        worker.start()
        assert not dropped.wait(1.0), "the drop ran while a downgrade below the baseline held the lock"
        with psycopg.connect(admin, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone() == (1,)
    worker.join(30)
    assert dropped.is_set()
    with psycopg.connect(admin, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone() == (0,)


def test_the_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    """A drop inside a downgrade's exclusive hold does not wait for itself
    (flock would: a second open file description conflicts with the first);
    asking for the exclusive lock inside a shared hold is a mistake, said at once.
    The lock is that of a server no other test uses (a socket directory of this
    test's own), so another worker's drop never holds it while the test checks
    that it is free again."""
    server = {"host": str(tmp_path), "port": "5432"}
    with catalog_lock(server, exclusive=True):
        with catalog_lock(server), catalog_lock(server, exclusive=True):
            assert not can_take(server, fcntl.LOCK_SH)
        assert not can_take(server, fcntl.LOCK_SH)  # still held by the outer block
    assert can_take(server, fcntl.LOCK_EX)
    with catalog_lock(server), pytest.raises(ClusterError, match="held shared by this thread"):
        with catalog_lock(server, exclusive=True):
            pass
    assert can_take(server, fcntl.LOCK_EX)
    catalog_lock_path(server).unlink()
