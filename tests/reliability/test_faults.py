"""Faults: nothing is half-written when a backend dies in the
middle of a merge, or when the whole server stops with `pg_ctl stop -m
immediate` (a crash: no shutdown checkpoint, recovery from WAL) under
concurrent load.

The crash test uses its own throwaway cluster (port LEDGER_CRASH_PGPORT,
else LEDGER_PGPORT + 100, else 54346, in /tmp/findings-ledger-crash-<uid>.<port>)
so that the shared test server is never killed; it is stopped and its
directory removed at the end.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.load import check_serial_replay, run_load, setup
from support.security import connect_as, counts, wait_until_blocked
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.testing import cluster

LOAD_SECONDS = float(os.environ.get("LEDGER_STRESS_SECONDS", "3"))

BLOCKERS = {
    # where the merge's trigger is stopped, and the lock that stops it there
    "locking_findings": "SELECT id FROM ledger.finding WHERE title = 'second' FOR UPDATE",
    "before_audit": "LOCK TABLE ledger.supersession IN SHARE MODE",
    "after_audit_before_update": "LOCK TABLE ledger.finding IN SHARE MODE",
}


def victim_locks(observer: psycopg.Connection[Any], pid: int) -> set[tuple[str, str, bool]]:
    rows = observer.execute(
        "SELECT coalesce(relation::regclass::text, locktype), mode, granted FROM pg_locks WHERE pid = %s", (pid,)
    ).fetchall()
    return {tuple(r) for r in rows}  # type: ignore[misc]


@pytest.mark.parametrize("where", list(BLOCKERS))
def test_backend_terminated_inside_the_merge_trigger_leaves_nothing(
    ledger_conn: psycopg.Connection, ledger_dsn: str, where: str
) -> None:
    retire_drift_on_touch(ledger_conn, "spec")  # the path rule as such on the drift findings
    first = fl.add_finding(ledger_conn, "spec", "first", paths=["src/a.py"], kind="drift").id
    second = fl.add_finding(ledger_conn, "spec", "second", paths=["src/"], kind="drift").id
    before = counts(ledger_conn)
    blocker = psycopg.connect(ledger_dsn)
    victim = connect_as(ledger_dsn, "ledger_writer")
    pid = victim.info.backend_pid
    outcome: dict[str, BaseException] = {}

    def run_merge() -> None:
        try:
            victim.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'abcd', '{src/a.py}')")
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    try:
        blocker.execute(BLOCKERS[where])
        thread = threading.Thread(target=run_merge)
        thread.start()
        wait_until_blocked(ledger_conn, pid)
        locks = victim_locks(ledger_conn, pid)
        # the merge row is written and the trigger is where we stopped it
        assert ("ledger.merge", "RowExclusiveLock", True) in locks
        if where == "before_audit":
            assert ("ledger.supersession", "RowExclusiveLock", False) in locks
        if where == "after_audit_before_update":
            assert ("ledger.supersession", "RowExclusiveLock", True) in locks
            assert ("ledger.finding", "RowExclusiveLock", False) in locks
        assert ledger_conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        thread.join(60)
        assert not thread.is_alive()
        for _ in range(6000):
            if ledger_conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (0,):
                break
            ledger_conn.execute("SELECT pg_sleep(0.01)")
    finally:
        blocker.rollback()
        blocker.close()
        victim.close()
    assert isinstance(outcome.get("error"), psycopg.OperationalError)
    assert counts(ledger_conn) == before
    assert [f.id for f in fl.active_findings(ledger_conn, "spec")] == [second, first]
    # nothing left behind: the same merge can be delivered again and works
    with connect_as(ledger_dsn, "ledger_writer") as writer:
        again = fl.record_merge(writer, "spec", "abcd", ["src/a.py"])
    assert again.recorded and sorted(again.superseded) == [first, second]


@pytest.fixture
def crash_cluster() -> Iterator[cluster.Cluster]:
    """A throwaway cluster of this test's own (never the shared test server)."""
    port = crash_port()
    # per OS user: a directory another user left (root runs it as postgres) cannot be reused
    own = cluster.Cluster(base=Path(f"/tmp/findings-ledger-crash-{os.geteuid()}.{port}"), port=port)
    cluster.ensure_cluster(own)
    try:
        yield own
    finally:
        cluster.stop_cluster(own, mode="fast")
        shutil.rmtree(own.base, ignore_errors=True)  # its data directory holds nothing worth keeping


def crash_port() -> int:
    """LEDGER_CRASH_PGPORT, else LEDGER_PGPORT + 100 (so that a run on its own
    port crashes a cluster on its own port too), else 54346."""
    raw = os.environ.get("LEDGER_CRASH_PGPORT", "").strip()
    if raw:
        return int(raw)
    main = os.environ.get(cluster.PORT_ENV, "").strip()
    return int(main) + 100 if main.isdigit() and int(main) + 100 <= 65535 else 54346


def test_the_crash_port_follows_ledger_pgport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_CRASH_PGPORT", raising=False)
    monkeypatch.setenv(cluster.PORT_ENV, "54335")
    assert crash_port() == 54435
    monkeypatch.setenv("LEDGER_CRASH_PGPORT", "54999")
    assert crash_port() == 54999


@pytest.mark.stress
def test_immediate_stop_under_load_loses_no_committed_merge(crash_cluster: cluster.Cluster) -> None:
    with psycopg.connect(crash_cluster.dsn("postgres"), autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS crash WITH (FORCE)")
        admin.execute("CREATE DATABASE crash")
    dsn = crash_cluster.dsn("crash")
    fl.migrate(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        setup(conn)

    reports: list[Any] = []
    loader = threading.Thread(target=lambda: reports.extend(
        run_load(dsn, workers=8, seconds=LOAD_SECONDS * 4, synchronous_commit=True)))
    loader.start()
    time.sleep(max(1.0, LOAD_SECONDS / 2))  # let the load run, then crash it mid-flight
    assert cluster.stop_cluster(crash_cluster, mode="immediate")
    loader.join(120)
    assert not loader.is_alive()
    cluster.ensure_cluster(crash_cluster)  # crash recovery from WAL

    errors = [e for r in reports for e in r.errors]
    assert all("OperationalError" in e or "AdminShutdown" in e or "connect:" in e for e in errors), errors[:3]
    acked = {sha for r in reports for sha in r.committed_shas}
    in_doubt = {sha for r in reports for sha in r.in_doubt_shas}
    assert acked, "the load committed nothing before the crash"
    with psycopg.connect(dsn, autocommit=True) as conn:
        present = {r[0] for r in conn.execute("SELECT commit_sha FROM ledger.merge").fetchall()}
        stats = check_serial_replay(conn)  # every surviving merge has its full effect and audit
    assert acked <= present, sorted(acked - present)[:5]
    assert present <= acked | in_doubt, sorted(present - acked - in_doubt)[:5]
    print(f"\ncrash: {len(acked)} acknowledged merges survived, {len(in_doubt)} in doubt, {stats}")


def anchored_scope(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    """Two line-anchored drift findings on src/a.py (lines 42 and 5), under
    touch mode retire: a merge that adds 3 lines after line 20 moves the
    first one's anchor and keeps the second's (no audit row for it)."""
    retire_drift_on_touch(conn, "spec")
    moved = fl.add_finding(conn, "spec", "moved", paths=["src/a.py:42"], kind="drift").id
    kept = fl.add_finding(conn, "spec", "kept", paths=["src/a.py:5"], kind="drift").id
    return moved, kept


ANCHOR_MERGE = ("INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) "
                "VALUES ('spec', 'abcd', '{src/a.py}', '{\"src/a.py\": [[20, 0, 21, 3]]}')")


def check_anchor_merge_redelivered(conn: psycopg.Connection[Any], moved: int, kept: int) -> None:
    """After a lost merge: the anchors are where they were, no audit row;
    the merge delivered again moves the first anchor once, audited once
    (the merge's anchor record, which merge), and names nothing of the one it keeps."""
    anchors = dict(conn.execute("SELECT id, anchors FROM ledger.finding ORDER BY id").fetchall())
    assert anchors == {moved: {"src/a.py": [42, 42]}, kept: {"src/a.py": [5, 5]}}
    assert conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)
    conn.execute(ANCHOR_MERGE)
    anchors = dict(conn.execute("SELECT id, anchors FROM ledger.finding ORDER BY id").fetchall())
    assert anchors == {moved: {"src/a.py": [45, 45]}, kept: {"src/a.py": [5, 5]}}
    # one row: the merge's anchor record, naming the moved finding alone
    rows = conn.execute("SELECT a.finding_id, a.action, m.commit_sha, a.detail "
                        "FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id").fetchall()
    assert rows == [(None, "anchor_moved", "abcd", {"moves": {"src/a.py": {str(moved): [42, 42, 45, 45]}}})]


@pytest.mark.parametrize("where", ["before_audit", "after_audit_before_anchor_update"])
def test_backend_terminated_between_a_merge_and_its_anchor_bookkeeping_loses_nothing(
    ledger_conn: psycopg.Connection, ledger_dsn: str, where: str
) -> None:
    moved, kept = anchored_scope(ledger_conn)
    before = counts(ledger_conn)
    blocker = psycopg.connect(ledger_dsn)
    victim = connect_as(ledger_dsn, "ledger_writer")
    pid = victim.info.backend_pid
    outcome: dict[str, BaseException] = {}

    def run_merge() -> None:
        try:
            victim.execute(ANCHOR_MERGE)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    try:
        blocker.execute(BLOCKERS["before_audit" if where == "before_audit" else "after_audit_before_update"])
        thread = threading.Thread(target=run_merge)
        thread.start()
        wait_until_blocked(ledger_conn, pid)
        locks = victim_locks(ledger_conn, pid)
        assert ("ledger.merge", "RowExclusiveLock", True) in locks
        if where == "after_audit_before_anchor_update":
            # the anchor record is written, the anchor UPDATE waits
            assert ("ledger.supersession", "RowExclusiveLock", True) in locks
            assert ("ledger.finding", "RowExclusiveLock", False) in locks
        assert ledger_conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        thread.join(60)
        assert not thread.is_alive()
    finally:
        blocker.rollback()
        blocker.close()
        victim.close()
    assert isinstance(outcome.get("error"), psycopg.OperationalError)
    assert counts(ledger_conn) == before
    check_anchor_merge_redelivered(ledger_conn, moved, kept)


def test_a_crash_between_a_merge_and_its_anchor_bookkeeping_loses_nothing(crash_cluster: cluster.Cluster) -> None:
    """pg_ctl stop -m immediate while the merge's anchor UPDATE waits (its
    audit row written, uncommitted): after recovery from WAL nothing of the
    merge is there, and delivering it again moves the anchor once."""
    with psycopg.connect(crash_cluster.dsn("postgres"), autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS crash_anchor WITH (FORCE)")
        admin.execute("CREATE DATABASE crash_anchor")
    dsn = crash_cluster.dsn("crash_anchor")
    fl.migrate(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        moved, kept = anchored_scope(conn)
        conn.execute("CHECKPOINT")  # the findings are durable (the throwaway cluster commits asynchronously)
    blocker = psycopg.connect(dsn)
    victim = psycopg.connect(dsn, autocommit=True)
    pid = victim.info.backend_pid
    outcome: dict[str, BaseException] = {}

    def run_merge() -> None:
        try:
            victim.execute(ANCHOR_MERGE)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    blocker.execute(BLOCKERS["after_audit_before_update"])
    thread = threading.Thread(target=run_merge)
    thread.start()
    with psycopg.connect(dsn, autocommit=True) as observer:
        wait_until_blocked(observer, pid)
        assert ("ledger.supersession", "RowExclusiveLock", True) in victim_locks(observer, pid)
    assert cluster.stop_cluster(crash_cluster, mode="immediate")
    thread.join(60)
    assert not thread.is_alive() and isinstance(outcome.get("error"), psycopg.OperationalError)
    for c in (blocker, victim):
        c.close()
    cluster.ensure_cluster(crash_cluster)  # crash recovery from WAL
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (0,)
        check_anchor_merge_redelivered(conn, moved, kept)
