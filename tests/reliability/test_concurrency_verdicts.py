"""Two agents giving verdicts on one finding at the same moment.

ledger.verify_finding locks the finding FOR NO KEY UPDATE, so two verdicts
on one finding are taken one after the other. Stepped isolation-style with
two real connections (ledger_agent): the first verdict's transaction stays
open holding the lock, the second call blocks (pg_stat_activity shows it
waiting for a lock), the first commits, the second returns. Whichever
arrives first, resolved wins and the audit shows both verdicts: a
still_true that waited for a resolved one is audited already_superseded
(its verdict in detail) and returned, not raised; a resolved that waited
for a still_true supersedes by the touch it was shown.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from support.security import connect_as, wait_until_blocked

import findings_ledger as fl

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)
SHA = "342b7a0b9ad4" + "0" * 28


def race(dsn: str, fid: int, first: str, second: str) -> tuple[fl.AuditEntry, fl.AuditEntry]:
    """``first``'s verdict holds the finding's lock in an open transaction
    while ``second``'s call waits for it; then ``first`` commits."""
    a = connect_as(dsn, "ledger_agent")
    b = connect_as(dsn, "ledger_agent")
    observer = connect_as(dsn)
    a.autocommit = False
    results: dict[str, Any] = {}
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results["second"] = fl.verify_finding(b, fid, second, f"{second} at HEAD", "agent-b")
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        results["first"] = fl.verify_finding(a, fid, first, f"{first} at HEAD", "agent-a")
        pid = b.info.backend_pid
        thread = threading.Thread(target=call)
        thread.start()
        wait_until_blocked(observer, pid)
        a.commit()
        thread.join(30)
        assert not thread.is_alive()
    finally:
        a.close()
        b.close()
        observer.close()
    assert errors == []
    return results["first"], results["second"]


@pytest.fixture
def flagged(ledger_conn: psycopg.Connection) -> tuple[int, int]:
    fid = fl.add_finding(ledger_conn, "s", "a.py is stale", finding_key="F1", paths=["a.py"], kind="drift",
                         observed_at=OLD).id
    mid = fl.record_merge(ledger_conn, "s", SHA, paths=["a.py"], message="Touch a.py").merge_id
    return fid, mid


def audit(conn: psycopg.Connection[Any], fid: int) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT action, rule, merge_id, actor, detail ->> 'verdict' FROM ledger.supersession "
                        "WHERE finding_id = %s AND rule = 'verified' ORDER BY id", (fid,)).fetchall()


def state(conn: psycopg.Connection[Any], fid: int) -> tuple[Any, ...]:
    row = conn.execute("SELECT superseded_at IS NOT NULL, superseded_by_merge_id, supersede_rule FROM ledger.finding "
                       "WHERE id = %s", (fid,)).fetchone()
    assert row is not None
    return tuple(row)


def test_resolved_first_then_still_true_is_already_superseded(
        ledger_conn: psycopg.Connection, ledger_dsn: str, flagged: tuple[int, int]) -> None:
    fid, mid = flagged
    first, second = race(ledger_dsn, fid, "resolved", "still_true")
    assert (first.action, second.action) == ("superseded", "already_superseded")
    assert second.detail is not None
    assert (second.merge_id, second.detail["verdict"], second.detail["supersede_rule"],
            second.detail["superseded_by_merge_id"]) == (mid, "still_true", "verified", mid)
    assert audit(ledger_conn, fid) == [("superseded", "verified", mid, "agent-a", "resolved"),
                                       ("already_superseded", "verified", mid, "agent-b", "still_true")]
    assert state(ledger_conn, fid) == (True, mid, "verified")


def test_still_true_first_then_resolved_supersedes_by_the_touch_it_was_shown(
        ledger_conn: psycopg.Connection, ledger_dsn: str, flagged: tuple[int, int]) -> None:
    fid, mid = flagged
    first, second = race(ledger_dsn, fid, "still_true", "resolved")
    assert (first.action, second.action) == ("verified_still_true", "superseded")
    assert (first.merge_id, second.merge_id) == (mid, mid)
    assert audit(ledger_conn, fid) == [("verified_still_true", "verified", mid, "agent-a", "still_true"),
                                       ("superseded", "verified", mid, "agent-b", "resolved")]
    assert state(ledger_conn, fid) == (True, mid, "verified")


def test_two_resolved_verdicts_supersede_once(
        ledger_conn: psycopg.Connection, ledger_dsn: str, flagged: tuple[int, int]) -> None:
    fid, mid = flagged
    first, second = race(ledger_dsn, fid, "resolved", "resolved")
    assert (first.action, second.action) == ("superseded", "already_superseded")
    assert [r[0] for r in audit(ledger_conn, fid)] == ["superseded", "already_superseded"]
    assert state(ledger_conn, fid) == (True, mid, "verified")
