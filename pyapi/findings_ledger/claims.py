"""Issues and agent tasks: task claims with versioned issue snapshots.

Thin wrappers over the stored functions (``ledger.add_issue``,
``ledger.enqueue_task``, ``ledger.claim_task`` and the task state
functions; see docs/claims.md), plus :func:`render_claim_hint`, the text an
agent sees when its claim lands. Conventions, as in
:mod:`findings_ledger.api`: the first argument is the caller's psycopg 3
connection, nothing here commits, each call is one SQL statement calling one
stored function with named arguments (its text in
:mod:`findings_ledger.queries`), results are the frozen dataclasses
:class:`~findings_ledger.models.Issue`, :class:`~findings_ledger.models.AgentTask`
and :class:`~findings_ledger.models.Claim`, and ledger SQLSTATEs arrive as
typed exceptions from :mod:`findings_ledger.errors`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import class_row

from . import queries
from .errors import checked_arguments, translate
from .models import AgentTask, Claim, Issue


def _one(conn: psycopg.Connection[Any], cls: type[Any], sql: str, params: dict[str, Any]) -> Any:
    with translate(conn), conn.cursor(row_factory=class_row(cls)) as cur:
        cur.execute(sql, params)
        return cur.fetchone()


@checked_arguments
def add_issue(
    conn: psycopg.Connection[Any],
    scope: str,
    title: str,
    *,
    description: str | None = None,
    status: str = "todo",
    priority: str = "none",
    assignee_type: str | None = None,
    assignee_id: str | None = None,
) -> Issue:
    """Insert one issue (``ledger.add_issue``) and return the stored row.

    Raises ``ValueRequired`` (LD002), ``ValueInvalid`` (LD003: status,
    priority, assignee), ``ValueTooLong`` (LD004).
    """
    params = {
        "scope": scope,
        "title": title,
        "description": description,
        "status": status,
        "priority": priority,
        "assignee_type": assignee_type,
        "assignee_id": assignee_id,
    }
    row: Issue = _one(conn, Issue, queries.ADD_ISSUE, params)
    return row


@checked_arguments
def enqueue_task(
    conn: psycopg.Connection[Any],
    issue_id: int,
    agent_id: str,
    runtime_id: str,
    *,
    rerun_of_task_id: int | None = None,
    force_fresh_session: bool = False,
) -> AgentTask:
    """Queue one agent run on an issue (``ledger.enqueue_task``).

    ``rerun_of_task_id`` makes it a manual rerun of that task (it anchors on
    exactly that run); ``force_fresh_session`` resumes nothing. Raises
    LD002-LD004 as typed errors, ``NotFound`` (LD005) for an unknown issue or
    rerun source.
    """
    params = {
        "issue_id": issue_id,
        "agent_id": agent_id,
        "runtime_id": runtime_id,
        "rerun_of_task_id": rerun_of_task_id,
        "force_fresh_session": force_fresh_session,
    }
    row: AgentTask = _one(conn, AgentTask, queries.ENQUEUE_TASK, params)
    return row


@checked_arguments
def claim_task(conn: psycopg.Connection[Any], runtime_id: str, *, agent_id: str | None = None,
               lease: timedelta | None = None) -> Claim | None:
    """Claim the next task of ``runtime_id`` (and ``agent_id`` when given)
    with ``ledger.claim_task``; None when there is none.

    ``lease`` (more than 0, at most a day; None: no lease): how long the claim
    holds the task; renew it with :func:`renew_task_lease` while the run goes
    on. A task still dispatched or running whose lease has expired (its
    runtime died) is taken first: it is failed with reason ``lease_expired``
    and a rerun of it is dispatched (``Claim.reclaimed_task_id`` names it).

    The claim dispatches the task, records the issue snapshot under a CAS and
    reports whether the issue body changed since the run whose session it
    resumes (see :class:`Claim`). Safe to call from many connections at once
    (``FOR UPDATE SKIP LOCKED``). Raises LD002-LD004 for a bad ``runtime_id``,
    ``agent_id`` or ``lease``, ``ValueInvalid`` (LD003) for an invalid
    ``ledger.snapshot_version`` setting.
    """
    row: Claim | None = _one(conn, Claim, queries.CLAIM_TASK,
                             {"runtime_id": runtime_id, "agent_id": agent_id, "lease": lease})
    return row


@checked_arguments
def renew_task_lease(conn: psycopg.Connection[Any], task_id: int, runtime_id: str, lease: timedelta) -> datetime:
    """Extend the lease of a dispatched or running task that ``runtime_id``
    claimed to now + ``lease`` (``ledger.renew_task_lease``, the runtime's
    heartbeat) and return when it now expires. Raises ``NotFound`` (LD005),
    ``LeaseInvalid`` (LD103: another runtime's task, or one not dispatched
    or running: never claimed, ended, or taken over by a claim after its
    lease expired), ``ValueInvalid`` (LD003: a lease not positive or over a
    day)."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.RENEW_TASK_LEASE, {"task_id": task_id, "runtime_id": runtime_id, "lease": lease})
        row = cur.fetchone()
    assert row is not None
    until: datetime = row[0]
    return until


@checked_arguments
def start_task(conn: psycopg.Connection[Any], task_id: int, *, session_id: str | None = None) -> AgentTask:
    """dispatched -> running (``ledger.start_task``); ``session_id`` records
    the provider session when it differs from the resumed one.
    Raises ``NotFound`` (LD005), ``TaskTransitionInvalid`` (LD201)."""
    row: AgentTask = _one(conn, AgentTask, queries.START_TASK, {"task_id": task_id, "session_id": session_id})
    return row


@checked_arguments
def complete_task(conn: psycopg.Connection[Any], task_id: int, *, session_id: str | None = None) -> AgentTask:
    """running -> completed (``ledger.complete_task``): the run delivered.
    Raises ``NotFound`` (LD005), ``TaskTransitionInvalid`` (LD201)."""
    row: AgentTask = _one(conn, AgentTask, queries.COMPLETE_TASK, {"task_id": task_id, "session_id": session_id})
    return row


@checked_arguments
def fail_task(
    conn: psycopg.Connection[Any], task_id: int, failure_reason: str, *, session_id: str | None = None
) -> AgentTask:
    """dispatched | running -> failed (``ledger.fail_task``). A reason listed
    in ``ledger.poisoned_failure_reason`` stops the session from being
    resumed. Raises ``NotFound`` (LD005), ``TaskTransitionInvalid`` (LD201),
    ``ValueRequired`` (LD002) for a missing reason."""
    params = {"task_id": task_id, "failure_reason": failure_reason, "session_id": session_id}
    row: AgentTask = _one(conn, AgentTask, queries.FAIL_TASK, params)
    return row


@checked_arguments
def cancel_task(conn: psycopg.Connection[Any], task_id: int, *, reason: str | None = None) -> AgentTask:
    """queued | dispatched | running -> cancelled (``ledger.cancel_task``).
    Raises ``NotFound`` (LD005), ``TaskTransitionInvalid`` (LD201)."""
    row: AgentTask = _one(conn, AgentTask, queries.CANCEL_TASK, {"task_id": task_id, "reason": reason})
    return row


@checked_arguments
def requeue_task(conn: psycopg.Connection[Any], task_id: int) -> AgentTask:
    """dispatched (never started) -> queued (``ledger.requeue_task``); the next
    claim is a new dispatch with a fresh snapshot. Raises ``NotFound``
    (LD005), ``TaskTransitionInvalid`` (LD201)."""
    row: AgentTask = _one(conn, AgentTask, queries.REQUEUE_TASK, {"task_id": task_id})
    return row


@checked_arguments
def issue_snapshot(
    conn: psycopg.Connection[Any], title: str, description: str | None, *, version: int | None = None
) -> dict[str, Any]:
    """``ledger.issue_snapshot``: ``{"v", "title_sha256", "description_sha256"}``
    (lowercase hex SHA-256 of the UTF-8 bytes; version 2 hashes after
    CRLF -> LF and NFC). ``version`` None uses the deployment's setting.
    Raises ``ValueInvalid`` (LD003) for a version other than 1 or 2."""
    params = {"title": title, "description": description, "version": version}
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.ISSUE_SNAPSHOT, params)
        row = cur.fetchone()
    assert row is not None
    snapshot: dict[str, Any] = row[0]
    return snapshot


_UNKNOWN_WHY = {
    "fresh_session": "This run starts a fresh session, so you carry no earlier context of it.",
    "nothing_resumed": "You are not resuming an earlier session on it.",
    "not_delivered": "The run you resume (task #{resumed}) never delivered, so nothing dates what your context holds.",
    "no_snapshot": "The run you resume (task #{resumed}) recorded no snapshot of the issue, so whether it changed "
    "is unknown.",
    "not_comparable": "The run you resume (task #{resumed}) recorded a snapshot this deployment cannot compare, "
    "so whether it changed is unknown.",
}


def _assignee(claim: Claim) -> str:
    if claim.issue_assignee_type is None:
        return "unassigned"
    return f"{claim.issue_assignee_type} {claim.issue_assignee_id}"


@checked_arguments
def render_claim_hint(claim: Claim) -> str:
    """The hint an agent sees for a claim, in one of three cases:

    * not resumed, or the delta unknown: read the issue first (with why);
    * known and unchanged: continue from the resumed context;
    * known and changed: which fields changed; read the issue again.

    Every case ends with the issue's current status and assignee, which the
    claim ships every time instead of comparing them.
    """
    current = f"Current status: {claim.issue_status}; assignee: {_assignee(claim)}."
    issue = f"Issue #{claim.issue_id}"
    if not claim.issue_state_delta_known or claim.issue_changed_fields is None:
        why = _UNKNOWN_WHY.get(claim.delta_basis, "Whether it changed is unknown.").format(
            resumed=claim.resumed_task_id
        )
        return f"{issue}: read the issue (title and description) before you start. {why} {current}"
    if not claim.issue_changed_fields:
        return (
            f"{issue}: the title and description are unchanged since the run you resume "
            f"(task #{claim.anchor_task_id}). Continue from your resumed context; there is no need to "
            f"re-read the issue. {current}"
        )
    fields = " and ".join(claim.issue_changed_fields)
    verb = "have" if len(claim.issue_changed_fields) > 1 else "has"
    return (
        f"{issue}: the {fields} {verb} changed since the run you resume (task #{claim.anchor_task_id}). "
        f"Read the issue again before you continue: your resumed context predates the change. {current}"
    )
