"""Eight connections claiming from one queue of 2,000 tasks: FOR UPDATE SKIP
LOCKED hands every task to exactly one claimer and leaves none behind."""

from __future__ import annotations

import threading
from collections import Counter

import psycopg

import findings_ledger as fl

TASKS = 2000
WORKERS = 8


def test_eight_connections_claim_2000_tasks_each_exactly_once(ledger_dsn: str, ledger_conn: psycopg.Connection) -> None:
    ledger_conn.execute(
        "INSERT INTO ledger.issue (scope, title, description) "
        "SELECT 'load', 'issue ' || n, 'body ' || n FROM generate_series(1, 200) n")
    # 10 tasks per issue, two agents, all on one runtime: one queue.
    ledger_conn.execute(
        "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) "
        "SELECT i.id, 'agent-' || (n % 2), 'rt-load' FROM ledger.issue i, generate_series(1, 10) n ORDER BY n, i.id")
    assert ledger_conn.execute("SELECT count(*) FROM ledger.agent_task WHERE status = 'queued'").fetchone() == (TASKS,)

    claimed: list[list[int]] = [[] for _ in range(WORKERS)]
    errors: list[BaseException] = []
    start = threading.Barrier(WORKERS)

    def worker(slot: int) -> None:
        try:
            with psycopg.connect(ledger_dsn, autocommit=True) as conn:
                start.wait()
                while (claim := fl.claim_task(conn, "rt-load")) is not None:
                    claimed[slot].append(claim.task_id)
        except BaseException as exc:  # reported below, so a failing thread fails the test
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert errors == []
    all_ids = [task for ids in claimed for task in ids]
    duplicates = [task for task, n in Counter(all_ids).items() if n > 1]
    assert duplicates == []
    assert len(all_ids) == TASKS
    rows = ledger_conn.execute(
        "SELECT status, dispatch_count, issue_snapshot IS NOT NULL, count(*) FROM ledger.agent_task "
        "GROUP BY 1, 2, 3").fetchall()
    assert rows == [("dispatched", 1, True, TASKS)]
    assert set(all_ids) == {r[0] for r in ledger_conn.execute("SELECT id FROM ledger.agent_task")}


def test_a_claim_skips_a_task_another_open_claim_holds(ledger_dsn: str, ledger_conn: psycopg.Connection) -> None:
    issue = fl.add_issue(ledger_conn, "load", "t").id
    first = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-load").id
    second = fl.enqueue_task(ledger_conn, issue, "agent-b", "rt-load").id
    with psycopg.connect(ledger_dsn) as holder:  # its transaction stays open, holding the row lock
        held = fl.claim_task(holder, "rt-load")
        assert held is not None and held.task_id == first
        other = fl.claim_task(ledger_conn, "rt-load")  # does not wait: skips the locked row
        assert other is not None and other.task_id == second
        assert fl.claim_task(ledger_conn, "rt-load") is None
        holder.rollback()
    again = fl.claim_task(ledger_conn, "rt-load")  # the rolled-back claim left the task queued
    assert again is not None and (again.task_id, again.dispatch_count) == (first, 1)
