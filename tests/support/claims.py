"""Shared helpers of the claim tests: drive agent runs the way a service does."""

from __future__ import annotations

import hashlib
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

import findings_ledger as fl


def sha(text: str) -> str:
    """Lowercase hex SHA-256 of the UTF-8 bytes, computed independently of PostgreSQL."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def new_issue(conn: psycopg.Connection[Any], title: str = "Fix login", description: str | None = "Users cannot log in",
              **kw: Any) -> int:
    return fl.add_issue(conn, "claims", title, description=description, **kw).id


def run(
    conn: psycopg.Connection[Any],
    issue_id: int,
    *,
    agent: str = "agent-a",
    runtime: str = "rt-1",
    session: str | None = "sess-1",
    outcome: str = "completed",
    reason: str = "agent_crashed",
    rerun_of: int | None = None,
    force_fresh: bool = False,
) -> tuple[int, fl.Claim]:
    """Queue one run, claim it, then: ``completed`` (start + complete),
    ``failed`` (start + fail), ``never_started`` (fail while dispatched) or
    ``dispatched`` (leave it). Returns the task id and the claim."""
    task = fl.enqueue_task(conn, issue_id, agent, runtime, rerun_of_task_id=rerun_of, force_fresh_session=force_fresh)
    claim = fl.claim_task(conn, runtime, agent_id=agent)
    assert claim is not None and claim.task_id == task.id
    if outcome in ("completed", "failed"):
        fl.start_task(conn, task.id, session_id=session)
        if outcome == "completed":
            fl.complete_task(conn, task.id)
        else:
            fl.fail_task(conn, task.id, reason)
    elif outcome == "never_started":
        fl.fail_task(conn, task.id, reason, session_id=session)
    else:
        assert outcome == "dispatched"
    return task.id, claim


def follow_up(conn: psycopg.Connection[Any], issue_id: int, **kw: Any) -> fl.Claim:
    """Queue and claim the next run (left dispatched) and return its claim."""
    return run(conn, issue_id, outcome="dispatched", **kw)[1]


def import_snapshot(conn: psycopg.Connection[Any], task_id: int, snapshot: Any) -> None:
    """Overwrite a row's issue_snapshot the way history is imported from the
    earlier system: with session_replication_role = replica (no triggers)."""
    with conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("UPDATE ledger.agent_task SET issue_snapshot = %s WHERE id = %s",
                     (None if snapshot is None else Jsonb(snapshot), task_id))


def snapshot_of(conn: psycopg.Connection[Any], task_id: int) -> Any:
    row = conn.execute("SELECT issue_snapshot FROM ledger.agent_task WHERE id = %s", (task_id,)).fetchone()
    assert row is not None
    return row[0]
