"""A mixed load of sixteen connections, and two faults: a backend killed while a check pattern
is evaluated, and a backend killed while its task claim's lease is held.

* Load (tests/support/mixed_load.py): merges (record_merge and plain INSERT), drift-review
  imports, file-state answers, recheck claims and answers, verdicts, prompt reads and task
  claims with leases, two connections of each kind, for LEDGER_STRESS_SECONDS (3 s in
  ``make test``, 60 s in ``make test-stress``). No caller sees an error but the legitimate
  LD302 of a verdict on a finding another verdict retired first; every acknowledged call has
  its rows (lost = 0); the audit replay agrees with every finding's state. The figures are
  printed (operations and errors per kind, acknowledged rows per kind, lost).
* A check pattern allowed by the validation but slow (``[ab]*a[ab]{250}c`` on a 1 MiB file
  state: over a second of evaluation) is being evaluated inside record_file_states when its
  backend is terminated from another connection: nothing of the answer is written, no lock
  is left, a merge of the same scope goes through at once, and the answer given again ends
  in a recorded outcome (the request answered: held, the finding retired by rule check; or,
  where evaluation is bounded by a limit, error with check_error in the audit).
* A runtime claims a task with a lease and its backend is terminated: the task stays
  dispatched until the lease ends (no other claim takes it before), then the next claim takes
  it over: the expired task fails with lease_expired, a rerun of it (rerun_of_task_id) is
  claimed, reclaimed_task_id names it, and the dead runtime's late renewal is refused (LD103).
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections import Counter
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from support import mixed_load
from support.security import connect_as

import findings_ledger as fl

LOAD_SECONDS = float(os.environ.get("LEDGER_STRESS_SECONDS", "3"))
SLOW_PATTERN = "[ab]*a[ab]{250}c"


@pytest.mark.stress
def test_sixteen_connections_of_every_kind_lose_nothing_acknowledged(
    ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    mixed_load.seed(ledger_conn)
    ledger_conn.commit()
    reports = mixed_load.run(ledger_dsn, LOAD_SECONDS)
    assert len(reports) == 16
    ops = sum((r.ops for r in reports), Counter())
    errors = sum((r.errors for r in reports), Counter())
    races = sum((r.races for r in reports), Counter())
    texts = [t for r in reports for t in r.error_text]
    print(f"\nmixed load: {LOAD_SECONDS:g} s x 16 connections")
    print("operations: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    print("errors: " + (", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "none")
          + "; races (LD302 of a raced verdict): " + (", ".join(f"{k} {v}" for k, v in races.items()) or "none"))
    assert texts == [], "\n\n".join(texts[:3])
    ledger_conn.rollback()
    stats = mixed_load.check_nothing_lost(ledger_conn, reports)
    print("acknowledged and found: " + ", ".join(f"{k} {v}" for k, v in stats.items()))
    assert stats["lost"] == 0
    for kind in ("merge (record_merge)", "merge (INSERT)", "import", "file-state answer", "recheck claim",
                 "recheck answer", "prompt read", "task claim", "task completion"):
        assert ops[kind] > 0, kind
    assert ops["verdict resolved"] + ops["verdict still_true"] > 0


def evaluating(observer: psycopg.Connection[Any], pid: int) -> bool:
    """The backend ``pid`` runs record_file_states and waits for no lock (it is evaluating: the
    1 MiB text arrived with the statement, and nothing else holds the finding)."""
    row = observer.execute("SELECT state, wait_event_type, query FROM pg_stat_activity WHERE pid = %s",
                           (pid,)).fetchone()
    return row is not None and row[0] == "active" and row[1] != "Lock" and "record_file_states" in row[2]


def test_a_backend_killed_while_a_check_pattern_is_evaluated_leaves_the_request_answerable(
    ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    ledger_conn.autocommit = True
    fl.set_hygiene_mode(ledger_conn, "slow", "on", create=True)
    check = {"all": [{"file_lacks": {"path": "big.txt", "pattern": SLOW_PATTERN}}]}
    fid = fl.add_finding(ledger_conn, "slow", "big.txt has the long run", paths=["big.txt"], kind="drift",
                         resolved_when=check).id
    merge = fl.record_merge(ledger_conn, "slow", "abcd0001", ["big.txt"])
    (pending,) = fl.pending_file_states(ledger_conn, "slow")
    audit = "SELECT id, action FROM ledger.supersession WHERE finding_id = %s ORDER BY id"
    audit_before = ledger_conn.execute(audit, (fid,)).fetchall()
    rnd = random.Random(7)
    big = "".join(rnd.choice("ab") for _ in range(1_048_000))  # 1 MiB less a little: allowed
    victim = connect_as(ledger_dsn, "ledger_writer")
    victim.autocommit = True
    pid = victim.info.backend_pid
    outcome: dict[str, BaseException] = {}

    def answer() -> None:
        try:
            fl.record_file_states(victim, pending.merge_id, {"big.txt": big})
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    thread = threading.Thread(target=answer)
    started = time.monotonic()
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not evaluating(ledger_conn, pid):
            assert thread.is_alive() and time.monotonic() < deadline, "the answer ended before it was caught"
            time.sleep(0.01)
        time.sleep(0.2)  # well inside the evaluation (over a second)
        assert evaluating(ledger_conn, pid)
        assert ledger_conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        thread.join(30)
        assert not thread.is_alive()
    finally:
        victim.close()
    killed_after = time.monotonic() - started
    assert isinstance(outcome.get("error"), psycopg.OperationalError), outcome
    # nothing of the answer is written; the request waits for an answer; no lock is left
    assert fl.pending_file_states(ledger_conn, "slow") == [pending]
    assert ledger_conn.execute("SELECT states, answered_at, outcome FROM ledger.file_state_request "
                               "WHERE merge_id = %s", (merge.merge_id,)).fetchone() == (None, None, None)
    assert ledger_conn.execute(audit, (fid,)).fetchall() == audit_before
    assert ledger_conn.execute("SELECT count(*) FROM pg_locks WHERE pid = %s", (pid,)).fetchone() == (0,)
    # the scope is not stuck: another merge and another answer go through at once
    writer = connect_as(ledger_dsn, "ledger_writer")
    writer.autocommit = True
    try:
        writer.execute("SET statement_timeout = '5s'")
        fl.record_merge(writer, "slow", "abcd0002", ["other.txt"])
        # the same request answered again: a recorded outcome (the pattern cannot match: held)
        t0 = time.monotonic()
        outcomes = fl.record_file_states(writer, pending.merge_id, {"big.txt": big})
        evaluated = time.monotonic() - t0
    finally:
        writer.close()
    # a recorded outcome: held (the text has no run of 250 after an a followed by c), or error
    # (check_error audited) where the evaluation is bounded by a limit it reached
    ((finding_id, recorded),) = [(o.finding_id, o.outcome) for o in outcomes]
    assert finding_id == fid and recorded in ("held", "error")
    assert ledger_conn.execute("SELECT outcome, answered_at IS NOT NULL FROM ledger.file_state_request "
                               "WHERE merge_id = %s", (merge.merge_id,)).fetchone() == (recorded, True)
    state = ledger_conn.execute("SELECT state, supersede_rule FROM ledger.finding_lifecycle WHERE id = %s",
                                (fid,)).fetchone()
    actions = [a for _, a in ledger_conn.execute(audit, (fid,)).fetchall()]
    if recorded == "held":
        assert state == ("superseded", "check") and actions[-1] == "superseded"
    else:
        assert state[0] == "active" and actions[-1] == "check_error"
    assert fl.pending_file_states(ledger_conn, "slow") == []
    print(f"\nkilled {killed_after:.2f} s into the answer; answered again: {recorded} in {evaluated:.2f} s")


def test_a_backend_killed_while_its_task_lease_is_held_frees_the_task_when_the_lease_ends(
    ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    ledger_conn.autocommit = True
    issue = fl.add_issue(ledger_conn, "lease", "the issue", description="do it")
    task = fl.enqueue_task(ledger_conn, issue.id, "agent-l", "rt-l")
    runtime = connect_as(ledger_dsn, "ledger_agent")
    runtime.autocommit = True
    pid = runtime.info.backend_pid
    lease = timedelta(seconds=2)
    claim = fl.claim_task(runtime, "rt-l", lease=lease)
    assert claim is not None and claim.task_id == task.id
    fl.start_task(runtime, claim.task_id, session_id="sess-dead")
    # the runtime's backend dies while the lease is held (its connection holds no lock: the
    # lease is a column, not a session)
    assert ledger_conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
    with pytest.raises(psycopg.OperationalError):
        runtime.execute("SELECT 1")
    runtime.close()
    other = connect_as(ledger_dsn, "ledger_agent")
    other.autocommit = True
    try:
        # before the lease ends, nobody takes the task over
        assert fl.claim_task(other, "rt-l", lease=lease) is None
        assert ledger_conn.execute("SELECT status FROM ledger.agent_task WHERE id = %s",
                                   (task.id,)).fetchone() == ("running",)
        until = ledger_conn.execute("SELECT lease_expires_at - clock_timestamp() FROM ledger.agent_task "
                                    "WHERE id = %s", (task.id,)).fetchone()[0]  # type: ignore[index]
        time.sleep(max(until.total_seconds(), 0) + 0.1)
        rerun = fl.claim_task(other, "rt-l", lease=timedelta(minutes=5))
        assert rerun is not None
        assert (rerun.reclaimed_task_id, rerun.rerun_of_task_id) == (task.id, task.id)
        assert rerun.task_id != task.id
        with pytest.raises(fl.LeaseInvalid, match="lease_expired"):
            fl.renew_task_lease(other, task.id, "rt-l", lease)
        fl.start_task(other, rerun.task_id, session_id="sess-new")
        fl.complete_task(other, rerun.task_id)
    finally:
        other.close()
    rows = dict(ledger_conn.execute("SELECT id, status || coalesce(':' || failure_reason, '') FROM ledger.agent_task "
                                    "WHERE id IN (%s, %s)", (task.id, rerun.task_id)).fetchall())
    assert rows == {task.id: "failed:lease_expired", rerun.task_id: "completed"}

