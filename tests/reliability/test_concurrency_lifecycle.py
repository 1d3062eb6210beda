"""Lifecycle transitions racing merges: no deadlock reaches a caller.

Every function that changes a finding locks it FOR NO KEY UPDATE: the merge trigger, the revert trigger, report_finding,
replace_findings, dismiss_finding, restore_finding. The audit rows reference
findings, and their foreign key check takes FOR KEY SHARE on each, also on
findings another transaction has locked (a merge audits candidates and
mentions it does not lock). KEY SHARE waits for FOR UPDATE but not for FOR
NO KEY UPDATE: with the FOR UPDATE of 0001-0004, an audit insert waited for a
dismissal's or a re-report's lock while holding locks of its own, out of id
order, and the two transactions could deadlock. Each transaction also takes
its finding locks in one id-ordered pass (a merge together with the findings
its revert reopens; a re-review everything it may change).

* Isolation-style (two connections stepped by the test): a merge whose audit
  references a finding a dismissal (re-report, re-review) holds locked no
  longer waits for it; the transaction that held the lock then takes the
  merge's finding and both commit: the interleaving that deadlocked.
* Load: 8 connections (6 writers, 2 admins) race merges, key resolutions,
  reverts, re-reports, re-reviews, dismissals and restores over the same
  findings; no error but LD302 reaches a caller, and every finding's audit
  replays through the state machine to exactly its state (lifecycle_load).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from support.lifecycle_load import check_audit_replay, run, seed
from support.security import connect_as, wait_until_blocked
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec")

LOAD_SECONDS = float(os.environ.get("LEDGER_STRESS_SECONDS", "3"))


def _hold_b(conn: psycopg.Connection[Any], b: int) -> None:
    fl.dismiss_finding(conn, b, "wont_fix", "alice", "not now")


def _rereport_b(conn: psycopg.Connection[Any], b: int) -> None:
    assert fl.report_finding(conn, "spec", "B", "b is stale").outcome == "duplicate"


def _rereview_b(conn: psycopg.Connection[Any], b: int) -> None:
    fl.replace_findings(conn, "spec", "run-1", [{"finding_key": "B", "title": "b is stale", "kind": "review"}],
                        kind="review")


HOLDERS: dict[str, tuple[str, Callable[[psycopg.Connection[Any], int], None]]] = {
    "dismiss": ("ledger_admin", _hold_b),
    "re-report": ("ledger_writer", _rereport_b),
    "re-review": ("ledger_writer", _rereview_b),
}


@pytest.mark.parametrize("holder", list(HOLDERS))
def test_a_merge_audit_does_not_wait_for_a_lifecycle_lock(
        ledger_conn: psycopg.Connection, ledger_dsn: str, holder: str) -> None:
    """Finding A (drift) and B (review) both reference src/a.py. The holder
    transaction locks B (dismiss, re-report or re-review) and stays open. A
    merge touching src/a.py supersedes A (locking it) and audits B as a
    path candidate: the audit row's foreign key check on B must not wait for
    the holder. The holder then dismisses A, which waits for the merge only
    until it commits. Under FOR UPDATE the merge waited for B while holding
    A, the holder waited for A: a deadlock."""
    a = fl.report_finding(ledger_conn, "spec", "A", "a is stale", paths=["src/a.py"], kind="drift").finding_id
    b = fl.report_finding(ledger_conn, "spec", "B", "b is stale", paths=["src/a.py"], kind="review").finding_id
    role, hold = HOLDERS[holder]
    first = connect_as(ledger_dsn, role)
    merger = connect_as(ledger_dsn, "ledger_writer")
    admin = connect_as(ledger_dsn, "ledger_admin")
    first.autocommit = False
    admin.autocommit = False
    try:
        hold(first, b)  # step 1: B locked FOR NO KEY UPDATE, transaction open
        merge = fl.record_merge(merger, "spec", "abcd", ["src/a.py"])  # step 2: returns, no wait
        assert sorted((d.finding_id, d.action) for d in merge.decisions) == [(a, "superseded"), (b, "candidate")]
        if holder == "dismiss":
            fl.dismiss_finding(first, a, "accepted", "alice", "merged anyway")  # step 3
            first.commit()
        else:
            first.commit()
            fl.dismiss_finding(admin, a, "accepted", "alice", "merged anyway")
            admin.commit()
    finally:
        first.close()
        merger.close()
        admin.close()
    states = ledger_conn.execute("SELECT finding_key, state FROM ledger.finding_lifecycle ORDER BY id").fetchall()
    assert states == [("A", "dismissed"), ("B", "dismissed" if holder == "dismiss" else "active")]
    audit = ledger_conn.execute("SELECT finding_id, action FROM ledger.supersession "
                                "WHERE action IN ('superseded', 'dismissed') ORDER BY id").fetchall()
    assert audit == ([(b, "dismissed")] if holder == "dismiss" else []) + [(a, "superseded"), (a, "dismissed")]


def test_a_merge_that_supersedes_and_reverts_locks_in_one_pass(
        ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """Merge M1 superseded finding A. Merge M2 touches finding B's path and
    reverts M1 (reopening A); a re-review T of the scope locks A and B. A
    holder X locks A first, so T waits for A holding nothing, and M2 queues
    behind it. M2 takes A and B in one id-ordered statement, like T, so when
    X commits T runs to the end and then M2 does. If M2 locked B to supersede
    it and A afterwards to reopen it (two passes), it would hold B while
    waiting for A, T would hold A while waiting for B: a deadlock."""
    a = fl.report_finding(ledger_conn, "spec", "A", "a is stale", paths=["src/a.py"], kind="drift").finding_id
    b = fl.report_finding(ledger_conn, "spec", "B", "b is stale", paths=["src/b.py"], kind="drift").finding_id
    sha = "a1" * 20
    fl.record_merge(ledger_conn, "spec", sha, ["src/a.py"])
    holder = connect_as(ledger_dsn, "ledger_writer")
    reviewer = connect_as(ledger_dsn, "ledger_writer")
    merger = connect_as(ledger_dsn, "ledger_writer")
    holder.autocommit = False
    results: dict[str, Any] = {}
    errors: list[BaseException] = []

    def run(name: str, call: Callable[[], Any]) -> None:
        try:
            results[name] = call()
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        assert fl.report_finding(holder, "spec", "A", "a is stale").outcome == "reopened"  # X holds A
        threads = [
            threading.Thread(target=run, args=("T", lambda: fl.replace_findings(
                reviewer, "spec", "run-1", [{"finding_key": "A", "title": "a is stale"}], kind="drift"))),
            threading.Thread(target=run, args=("M2", lambda: fl.record_merge(
                merger, "spec", "b2" * 20, ["src/b.py"], message=f"Revert\n\nThis reverts commit {sha}."))),
        ]
        threads[0].start()
        wait_until_blocked(ledger_conn, reviewer.info.backend_pid)
        threads[1].start()
        wait_until_blocked(ledger_conn, merger.info.backend_pid)
        holder.rollback()  # X ends: A is superseded again, T and then M2 proceed
        for t in threads:
            t.join(60)
            assert not t.is_alive()
    finally:
        holder.close()
        reviewer.close()
        merger.close()
    assert errors == []
    review = results["T"]
    assert (review.reopened, review.superseded) == (1, 1)
    decisions = sorted((d.finding_id, d.action) for d in results["M2"].decisions)
    assert decisions == [(a, "not_reopened"), (b, "already_superseded")]
    assert ledger_conn.execute("SELECT finding_key, state, supersede_rule FROM ledger.finding_lifecycle "
                               "ORDER BY id").fetchall() == [("A", "active", None), ("B", "superseded", "rereview")]


@pytest.mark.stress
def test_lifecycle_transitions_racing_merges_never_deadlock(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    seed(ledger_conn)
    reports = run(ledger_dsn, workers=8, seconds=LOAD_SECONDS)
    errors = [e for r in reports for e in r.errors]
    assert errors == [], "\n\n".join(errors[:3])
    stats = check_audit_replay(ledger_conn, reports)
    assert stats["merge"] > 0 and stats["revert"] > 0 and stats["dismiss"] > 0 and stats["report"] > 0
    assert stats.get("superseded/path", 0) > 0 and stats.get("dismissed/manual", 0) > 0
    print(f"\nlifecycle load: {LOAD_SECONDS:g}s x 8 connections: {stats}")
