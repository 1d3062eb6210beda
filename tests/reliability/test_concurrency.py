"""Concurrency.

* Isolation-style (two connections stepped by the test): two merges that
  resolve the same finding at the same moment -> exactly one supersedes it,
  the other's audit row says already_superseded.
* Load: 8 connections insert findings and merges with overlapping paths into
  the same scopes; no deadlock or serialization error reaches a caller, and
  the final state is the serial replay of the committed transactions in
  commit order (tests/support/load.py). A few seconds in `make test`;
  `make test-stress` runs it for LEDGER_STRESS_SECONDS=60.

Deadlock freedom comes from ordered lock acquisition, not retries: each
merge locks the findings it supersedes in id order (ledger._apply_merge), a
transaction holds at most one merge's locks, and findings take no row locks
on each other. (A transaction inserting several merges takes their locks
merge by merge; see docs/security.md.)
"""

from __future__ import annotations

import os
import threading
from typing import Any

import psycopg
import pytest
from support.load import check_serial_replay, run_load, setup
from support.security import connect_as, wait_until_blocked
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec")

LOAD_SECONDS = float(os.environ.get("LEDGER_STRESS_SECONDS", "3"))


@pytest.mark.parametrize("first_outcome", ["commit", "rollback"])
def test_two_merges_resolve_the_same_finding_at_the_same_moment(
    ledger_conn: psycopg.Connection, ledger_dsn: str, first_outcome: str
) -> None:
    f1 = fl.add_finding(ledger_conn, "spec", "a.py is stale", paths=["src/a.py"], kind="drift").id
    f2 = fl.add_finding(ledger_conn, "spec", "src is stale", paths=["src/"], kind="drift").id
    first = connect_as(ledger_dsn, "ledger_writer")
    second = connect_as(ledger_dsn, "ledger_writer")
    first.autocommit = False
    try:
        # step 1: the first merge supersedes both and holds their row locks
        m1 = first.execute("INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) "
                           "VALUES ('spec', 'aaaa', 'first', '{src/a.py}') RETURNING id").fetchone()[0]
        # step 2: the second merge matched both findings and waits for the locks
        result: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: result.setdefault(
            "m2", fl.record_merge(second, "spec", "bbbb", ["src/a.py"], node_id="second")))
        thread.start()
        wait_until_blocked(ledger_conn, second.info.backend_pid)
        # step 3: the first transaction ends; the second re-checks after the lock
        getattr(first, first_outcome)()
        thread.join(60)
        assert not thread.is_alive()
    finally:
        first.close()
        second.close()
    m2 = result["m2"]
    decisions = sorted((d.finding_id, d.action) for d in m2.decisions)
    state = ledger_conn.execute(
        "SELECT id, superseded_by, superseded_by_merge_id FROM ledger.finding ORDER BY id").fetchall()
    superseded_rows = ledger_conn.execute(
        "SELECT finding_id, merge_id FROM ledger.supersession WHERE action = 'superseded' ORDER BY 1").fetchall()
    if first_outcome == "commit":
        assert decisions == [(f1, "already_superseded"), (f2, "already_superseded")]
        assert state == [(f1, "first", m1), (f2, "first", m1)]
        assert superseded_rows == [(f1, m1), (f2, m1)]
    else:
        assert decisions == [(f1, "superseded"), (f2, "superseded")]
        assert state == [(f1, "second", m2.merge_id), (f2, "second", m2.merge_id)]
        assert superseded_rows == [(f1, m2.merge_id), (f2, m2.merge_id)]


@pytest.mark.stress
def test_eight_connections_match_a_serial_replay_in_commit_order(
    ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    setup(ledger_conn)
    reports = run_load(ledger_dsn, workers=8, seconds=LOAD_SECONDS)
    errors = [e for r in reports for e in r.errors]
    assert errors == [], "\n\n".join(errors[:3])
    stats = check_serial_replay(ledger_conn)
    assert stats["merges"] > 0 and stats["superseded"] > 0
    assert stats["transactions"] == sum(r.transactions for r in reports)
    print(f"\nload: {LOAD_SECONDS:g}s x 8 connections: {stats}")
