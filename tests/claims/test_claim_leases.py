"""Task claims with leases: a runtime whose backend dies leaves its task
dispatched or running; with a lease (``claim_task(..., p_lease)``, renewed
with ``ledger.renew_task_lease``) the task is claimable again once the lease
has expired. The claim that takes it over fails the expired task with reason
``lease_expired`` (a transition of the task machine) and dispatches a rerun of
it (``rerun_of_task_id``), naming the task it reclaimed; the dead runtime's
late calls on the old task are refused."""

from __future__ import annotations

import time
from datetime import timedelta

import psycopg
import pytest
from support.claims import new_issue

import findings_ledger as fl

SHORT = timedelta(milliseconds=300)


def expire() -> None:
    time.sleep(SHORT.total_seconds() + 0.1)


def task_row(conn: psycopg.Connection, task: int) -> tuple:
    return conn.execute("SELECT status, failure_reason, lease_expires_at IS NOT NULL FROM ledger.agent_task "
                        "WHERE id = %s", (task,)).fetchone()


def test_a_claim_without_a_lease_never_expires(ledger_conn: psycopg.Connection) -> None:
    task = fl.enqueue_task(ledger_conn, new_issue(ledger_conn), "agent-a", "rt-1").id
    claim = fl.claim_task(ledger_conn, "rt-1")
    assert claim is not None and claim.task_id == task
    assert claim.lease_expires_at is None and claim.reclaimed_task_id is None
    assert fl.claim_task(ledger_conn, "rt-1") is None


@pytest.mark.parametrize("started", [False, True], ids=["dispatched", "running"])
def test_an_expired_lease_is_claimed_again_as_a_rerun(ledger_conn: psycopg.Connection, started: bool) -> None:
    c = ledger_conn
    task = fl.enqueue_task(c, new_issue(c), "agent-a", "rt-1").id
    claim = fl.claim_task(c, "rt-1", lease=SHORT)
    assert claim is not None and claim.task_id == task and claim.lease_expires_at is not None
    if started:
        fl.start_task(c, task, session_id="sess-dead")
    assert fl.claim_task(c, "rt-1", lease=SHORT) is None  # the lease still holds
    expire()
    again = fl.claim_task(c, "rt-1", lease=timedelta(minutes=5))
    assert again is not None and again.task_id != task
    assert (again.reclaimed_task_id, again.rerun_of_task_id) == (task, task)
    assert task_row(c, task) == ("failed", "lease_expired", True)
    assert task_row(c, again.task_id) == ("dispatched", None, True)
    # the dead runtime comes back: its task is final
    with pytest.raises(fl.TaskTransitionInvalid):
        fl.complete_task(c, task)
    with pytest.raises(fl.LeaseInvalid, match="lease_expired"):
        fl.renew_task_lease(c, task, "rt-1", timedelta(minutes=1))


def test_a_renewed_lease_keeps_the_task(ledger_conn: psycopg.Connection) -> None:
    c = ledger_conn
    task = fl.enqueue_task(c, new_issue(c), "agent-a", "rt-1").id
    first = fl.claim_task(c, "rt-1", lease=SHORT)
    assert first is not None
    fl.start_task(c, task, session_id="sess-1")
    until = fl.renew_task_lease(c, task, "rt-1", timedelta(minutes=5))
    assert first.lease_expires_at is not None and until > first.lease_expires_at
    expire()
    assert fl.claim_task(c, "rt-1") is None
    assert task_row(c, task) == ("running", None, True)
    fl.complete_task(c, task)


def test_renewal_is_refused_when_the_lease_is_not_held(ledger_conn: psycopg.Connection) -> None:
    c = ledger_conn
    task = fl.enqueue_task(c, new_issue(c), "agent-a", "rt-1").id
    with pytest.raises(fl.LeaseInvalid, match="queued"):
        fl.renew_task_lease(c, task, "rt-1", timedelta(minutes=1))  # never claimed
    fl.claim_task(c, "rt-1", lease=SHORT)
    with pytest.raises(fl.LeaseInvalid, match="rt-2"):
        fl.renew_task_lease(c, task, "rt-2", timedelta(minutes=1))  # another runtime's
    for bad in (timedelta(0), timedelta(seconds=-1), timedelta(days=2)):
        with pytest.raises(fl.ValueInvalid, match="lease"):
            fl.renew_task_lease(c, task, "rt-1", bad)
    with pytest.raises(fl.NotFound):
        fl.renew_task_lease(c, 999999, "rt-1", timedelta(minutes=1))
    with pytest.raises(fl.ValueInvalid, match="lease"):
        fl.claim_task(c, "rt-1", lease=timedelta(0))


def test_an_expired_lease_goes_before_the_queue(ledger_conn: psycopg.Connection) -> None:
    c = ledger_conn
    issue = new_issue(c)
    old = fl.enqueue_task(c, issue, "agent-a", "rt-1").id
    fl.claim_task(c, "rt-1", lease=SHORT)
    queued = fl.enqueue_task(c, issue, "agent-a", "rt-1").id
    expire()
    again = fl.claim_task(c, "rt-1")
    assert again is not None and again.reclaimed_task_id == old
    nxt = fl.claim_task(c, "rt-1")
    assert nxt is not None and nxt.task_id == queued and nxt.reclaimed_task_id is None
    # another runtime's or another agent's expired lease is not this claim's
    other = fl.enqueue_task(c, issue, "agent-b", "rt-2").id
    fl.claim_task(c, "rt-2", lease=SHORT)
    expire()
    assert fl.claim_task(c, "rt-1") is None
    assert fl.claim_task(c, "rt-2", agent_id="agent-a") is None
    taken = fl.claim_task(c, "rt-2", agent_id="agent-b")
    assert taken is not None and taken.reclaimed_task_id == other


def test_plain_sql_and_the_agent_role(ledger_conn: psycopg.Connection) -> None:
    c = ledger_conn
    task = fl.enqueue_task(c, new_issue(c), "agent-a", "rt-1").id
    row = c.execute("SELECT task_id, lease_expires_at > now() FROM ledger.claim_task("
                    "p_runtime_id => 'rt-1', p_lease => interval '1 minute')").fetchone()
    assert row == (task, True)
    c.execute("SET ROLE ledger_agent")
    assert c.execute("SELECT ledger.renew_task_lease(p_task_id => %s, p_runtime_id => 'rt-1', "
                     "p_lease => interval '2 minutes') > now() + interval '1 minute'", (task,)).fetchone() == (True,)
    c.execute("RESET ROLE")
    for role in ("ledger_writer", "ledger_reader"):
        c.execute(f"SET ROLE {role}")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            with c.transaction():
                c.execute("SELECT ledger.renew_task_lease(%s, 'rt-1', interval '1 minute')", (task,))
        c.execute("RESET ROLE")
