"""The agent_task machine and the issue table's validation, enforced in the
database for the functions and for plain SQL alike; the Python wrappers and
the agent's hint."""

from __future__ import annotations

import psycopg
import pytest
from support.claims import new_issue, run

import findings_ledger as fl


def status_of(conn: psycopg.Connection, task: int) -> tuple:
    return conn.execute("SELECT status, dispatch_count, started_at IS NOT NULL, completed_at IS NOT NULL, "
                        "failure_reason FROM ledger.agent_task WHERE id = %s", (task,)).fetchone()


def test_a_full_cycle_in_plain_sql(ledger_conn: psycopg.Connection) -> None:
    c = ledger_conn
    issue = c.execute("INSERT INTO ledger.issue (scope, title, description) VALUES ('svc', 'T', 'D') RETURNING id"
                      ).fetchone()[0]
    task = c.execute("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (%s, 'a', 'r') "
                     "RETURNING id", (issue,)).fetchone()[0]
    assert c.execute("SELECT task_id, issue_status FROM ledger.claim_task(p_runtime_id => 'r')").fetchone() == (
        task, "todo")
    assert status_of(c, task) == ("dispatched", 1, False, False, None)
    c.execute("SELECT ledger.start_task(p_task_id => %s, p_session_id => 's-1')", (task,))
    assert status_of(c, task) == ("running", 1, True, False, None)
    c.execute("SELECT ledger.complete_task(p_task_id => %s)", (task,))
    assert status_of(c, task) == ("completed", 1, True, True, None)
    assert c.execute("SELECT count(*) FROM ledger.claim_task('r')").fetchone() == (0,)  # queue empty
    assert c.execute("SELECT scope FROM ledger.scope").fetchall() == [("svc",)]  # created on first use


def test_plain_updates_follow_the_same_machine(ledger_conn: psycopg.Connection) -> None:
    task, _ = run(ledger_conn, new_issue(ledger_conn), outcome="dispatched")
    ledger_conn.execute("UPDATE ledger.agent_task SET status = 'running', session_id = 's' WHERE id = %s", (task,))
    assert status_of(ledger_conn, task) == ("running", 1, True, False, None)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("UPDATE ledger.agent_task SET status = 'failed' WHERE id = %s", (task,))
    assert info.value.sqlstate == "LD002"
    assert "failure_reason" in info.value.diag.message_primary
    ledger_conn.execute("UPDATE ledger.agent_task SET status = 'failed', failure_reason = 'x' WHERE id = %s", (task,))
    assert status_of(ledger_conn, task) == ("failed", 1, True, True, "x")


INVALID = [
    ("queued", "start_task"),
    ("queued", "complete_task"),
    ("queued", "fail_task"),
    ("queued", "requeue_task"),
    ("dispatched", "complete_task"),
    ("running", "start_task"),
    ("running", "requeue_task"),
    ("completed", "start_task"),
    ("completed", "complete_task"),
    ("completed", "fail_task"),
    ("completed", "cancel_task"),
    ("failed", "start_task"),
    ("failed", "cancel_task"),
    ("cancelled", "start_task"),
    ("cancelled", "requeue_task"),
]


def task_in(conn: psycopg.Connection, status: str) -> int:
    issue = new_issue(conn)
    if status == "queued":  # on a runtime nobody claims from, so it stays queued
        return fl.enqueue_task(conn, issue, "agent-a", "rt-idle").id
    task, _ = run(conn, issue, outcome="dispatched")
    if status in ("running", "completed", "failed"):
        fl.start_task(conn, task)
    if status == "completed":
        fl.complete_task(conn, task)
    elif status == "failed":
        fl.fail_task(conn, task, "boom")
    elif status == "cancelled":
        fl.cancel_task(conn, task)
    return task


CALLS = {
    "start_task": lambda c, t: fl.start_task(c, t),
    "complete_task": lambda c, t: fl.complete_task(c, t),
    "fail_task": lambda c, t: fl.fail_task(c, t, "boom"),
    "cancel_task": lambda c, t: fl.cancel_task(c, t),
    "requeue_task": lambda c, t: fl.requeue_task(c, t),
}


def test_an_invalid_transition_is_rejected_with_ld201(ledger_conn: psycopg.Connection) -> None:
    for status, call in INVALID:
        task = task_in(ledger_conn, status)
        before = status_of(ledger_conn, task)
        with pytest.raises(fl.TaskTransitionInvalid) as info:
            CALLS[call](ledger_conn, task)
        assert info.value.sqlstate == "LD201", (status, call)
        assert isinstance(info.value.__cause__, psycopg.Error)
        assert status_of(ledger_conn, task) == before, (status, call)


def test_a_plain_update_to_an_invalid_status_is_rejected_with_ld201(ledger_conn: psycopg.Connection) -> None:
    for status, target in [("completed", "running"), ("failed", "queued"), ("queued", "running"),
                           ("running", "dispatched"), ("cancelled", "completed")]:
        task = task_in(ledger_conn, status)
        with pytest.raises(psycopg.Error) as info:
            ledger_conn.execute("UPDATE ledger.agent_task SET status = %s WHERE id = %s", (target, task))
        assert info.value.sqlstate == "LD201", (status, target)
        assert ledger_conn.execute("SELECT status FROM ledger.agent_task WHERE id = %s", (task,)).fetchone() == (
            status,)


def test_a_new_task_starts_queued(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, status) "
                            "VALUES (%s, 'a', 'r', 'completed')", (issue,))
    assert info.value.sqlstate == "LD201"


def test_dispatching_outside_the_claim_is_rejected(ledger_conn: psycopg.Connection) -> None:
    task = task_in(ledger_conn, "queued")
    for sql in ("UPDATE ledger.agent_task SET status = 'dispatched' WHERE id = %s",
                "UPDATE ledger.agent_task SET dispatch_count = 7 WHERE id = %s",
                "UPDATE ledger.agent_task SET dispatched_at = now() WHERE id = %s"):
        with pytest.raises(psycopg.Error) as info:
            ledger_conn.execute(sql, (task,))
        assert info.value.sqlstate == "LD202"
    assert status_of(ledger_conn, task) == ("queued", 0, False, False, None)


def test_anchor_fields_are_frozen_once_dispatched(ledger_conn: psycopg.Connection) -> None:
    task = task_in(ledger_conn, "completed")
    other_issue = new_issue(ledger_conn, title="another issue")
    other_task = task_in(ledger_conn, "completed")
    for column, value in [("issue_id", other_issue), ("agent_id", "agent-b"), ("runtime_id", "rt-9"),
                          ("force_fresh_session", True), ("rerun_of_task_id", other_task)]:
        with pytest.raises(psycopg.Error) as info:
            ledger_conn.execute(f"UPDATE ledger.agent_task SET {column} = %s WHERE id = %s", (value, task))
        assert info.value.sqlstate == "LD204", column


def test_a_queued_task_may_still_be_retargeted(ledger_conn: psycopg.Connection) -> None:
    task = task_in(ledger_conn, "queued")
    ledger_conn.execute("UPDATE ledger.agent_task SET runtime_id = 'rt-2' WHERE id = %s", (task,))
    claim = fl.claim_task(ledger_conn, "rt-2")
    assert claim is not None and claim.task_id == task


def test_an_unknown_task_id_is_ld005(ledger_conn: psycopg.Connection) -> None:
    for call in sorted(CALLS):
        with pytest.raises(fl.NotFound) as info:
            CALLS[call](ledger_conn, 424242)
        assert info.value.sqlstate == "LD005", call


def test_an_unknown_issue_or_rerun_source_is_ld005(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.NotFound):
        fl.enqueue_task(ledger_conn, 999, "agent-a", "rt-1")
    issue = new_issue(ledger_conn)
    with pytest.raises(fl.NotFound):
        fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1", rerun_of_task_id=999)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.agent_task").fetchone() == (0,)


BAD_ISSUES = [
    ("scope, title", "('s', NULL)", "LD002", "issue.title"),
    ("scope, title", "('s', '   ')", "LD002", "issue.title"),
    ("scope, title", "(NULL, 't')", "LD002", "issue.scope"),
    ("scope, title, status", "('s', 't', 'open')", "LD003", "issue.status"),
    ("scope, title, priority", "('s', 't', 'p0')", "LD003", "issue.priority"),
    ("scope, title, assignee_type, assignee_id", "('s', 't', 'robot', 'x')", "LD003", "issue.assignee_type"),
    ("scope, title, assignee_type", "('s', 't', 'member')", "LD003", "issue.assignee_id"),
    ("scope, title", "('s', repeat('x', 1001))", "LD004", "issue.title"),
]


def test_a_bad_issue_is_rejected_naming_the_field(ledger_conn: psycopg.Connection) -> None:
    for columns, values, sqlstate, field in BAD_ISSUES:
        with pytest.raises(psycopg.Error) as info:
            ledger_conn.execute(f"INSERT INTO ledger.issue ({columns}) VALUES {values}")
        assert info.value.sqlstate == sqlstate, (columns, values)
        assert field in info.value.diag.message_primary
    assert ledger_conn.execute("SELECT count(*) FROM ledger.issue").fetchone() == (0,)


def test_issue_text_is_stored_exactly_as_written(ledger_conn: psycopg.Connection) -> None:
    issue = fl.add_issue(ledger_conn, " s ", "  padded title ", description="body\r\n", status="IN_REVIEW")
    assert (issue.scope, issue.title, issue.description, issue.status) == ("s", "  padded title ", "body\r\n",
                                                                           "in_review")


def test_claim_task_validates_its_runtime_and_agent(ledger_conn: psycopg.Connection) -> None:
    for runtime, agent, sqlstate in [(None, None, "LD002"), ("  ", None, "LD002"), ("r\n1", None, "LD003"),
                                     ("r" * 201, None, "LD004"), ("r", "a\tb", "LD003"), ("r", "", "LD003")]:
        with pytest.raises(fl.LedgerError) as info:
            fl.claim_task(ledger_conn, runtime, agent_id=agent)  # type: ignore[arg-type]
        assert info.value.sqlstate == sqlstate, (runtime, agent)
        assert "claim_task.p_" in str(info.value)


def test_claim_task_filters_by_agent_and_takes_the_oldest_first(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    a1 = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1").id
    b1 = fl.enqueue_task(ledger_conn, issue, "agent-b", "rt-1").id
    a2 = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1").id
    assert fl.claim_task(ledger_conn, "rt-1", agent_id="agent-b").task_id == b1  # type: ignore[union-attr]
    assert fl.claim_task(ledger_conn, "rt-1").task_id == a1  # type: ignore[union-attr]
    assert fl.claim_task(ledger_conn, "rt-1").task_id == a2  # type: ignore[union-attr]
    assert fl.claim_task(ledger_conn, "rt-1") is None
    assert fl.claim_task(ledger_conn, "rt-other") is None


# --- the hint ---------------------------------------------------------------------


def test_the_hint_when_nothing_is_resumed_says_read_the_issue_first(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, assignee_type="agent", assignee_id="agent-a")
    _, claim = run(ledger_conn, issue, outcome="dispatched")
    hint = fl.render_claim_hint(claim)
    assert hint.startswith(f"Issue #{issue}: read the issue")
    assert "not resuming" in hint
    assert "Current status: todo; assignee: agent agent-a." in hint


def test_the_hint_when_the_delta_is_unknown_says_read_the_issue_first(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue)
    retry, _ = run(ledger_conn, issue, outcome="never_started", reason="runtime_offline")
    _, claim = run(ledger_conn, issue, outcome="dispatched")
    hint = fl.render_claim_hint(claim)
    assert hint.startswith(f"Issue #{issue}: read the issue")
    assert f"task #{retry}" in hint and "never delivered" in hint


def test_the_hint_when_unchanged_says_continue_and_shows_status_and_assignee(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    first, _ = run(ledger_conn, issue)
    ledger_conn.execute("UPDATE ledger.issue SET status = 'in_review', assignee_type = 'member', "
                        "assignee_id = 'alice' WHERE id = %s", (issue,))
    _, claim = run(ledger_conn, issue, outcome="dispatched")
    hint = fl.render_claim_hint(claim)
    assert "unchanged" in hint and f"task #{first}" in hint and "Continue from your resumed context" in hint
    assert hint.endswith("Current status: in_review; assignee: member alice.")
    assert "read the issue (title" not in hint


def test_the_hint_when_changed_names_the_fields_and_says_read_the_issue(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue)
    ledger_conn.execute("UPDATE ledger.issue SET title = 'New', description = 'New body' WHERE id = %s", (issue,))
    _, claim = run(ledger_conn, issue, outcome="dispatched")
    hint = fl.render_claim_hint(claim)
    assert "the title and description have changed" in hint
    assert "Read the issue again" in hint
    assert "Current status: todo; assignee: unassigned." in hint


def test_the_python_wrappers_return_typed_rows(ledger_conn: psycopg.Connection) -> None:
    issue = fl.add_issue(ledger_conn, "py", "Title", description="Body", priority="high")
    assert isinstance(issue, fl.Issue) and issue.priority == "high"
    task = fl.enqueue_task(ledger_conn, issue.id, "agent-a", "rt-1")
    assert isinstance(task, fl.AgentTask) and task.status == "queued" and task.issue_snapshot is None
    claim = fl.claim_task(ledger_conn, "rt-1")
    assert isinstance(claim, fl.Claim) and claim.task_id == task.id
    started = fl.start_task(ledger_conn, task.id, session_id="sess-py")
    assert (started.status, started.session_id) == ("running", "sess-py")
    assert started.issue_snapshot == fl.issue_snapshot(ledger_conn, "Title", "Body")
    done = fl.complete_task(ledger_conn, task.id)
    assert done.status == "completed" and done.completed_at is not None
    with pytest.raises(AttributeError):
        done.status = "queued"  # type: ignore[misc]
