"""The finding lifecycle: identity and re-reports, re-review, dismissal,
restore, injections, the prompt read, the timeline and notifications.

A thin wrapper over the stored functions of revision ``0003_lifecycle`` (see
the README's "Finding lifecycle" section for the SQL a service writes). The
same conventions as :mod:`findings_ledger.api`: the first argument is the
caller's psycopg 3 connection, nothing here commits, each call is one SQL
statement (the text is in a module-level constant below), results are frozen
dataclasses, and ledger SQLSTATEs arrive as typed exceptions from
:mod:`findings_ledger.errors`.

States: ``active`` (``superseded_at IS NULL``), ``superseded`` (by a merge,
a re-review, ...), ``dismissed`` (a person decided: ``accepted``,
``false_positive``, ``wont_fix``, ``duplicate``). Every transition writes one
audit row in ``ledger.supersession`` and, for supersede, reopen, dismiss and
restore, sends ``NOTIFY ledger_finding`` with a JSON payload (see
:class:`FindingEvent`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from .errors import translate
from .models import ActiveFinding

#: The channel every supersede, reopen, dismiss and restore is notified on.
CHANNEL = "ledger_finding"

LIFECYCLE_COLUMNS = (
    "id, scope, finding_key, kind, severity, title, state, resolution, dismissed_at, dismissed_by, "
    "dismissal_reason, superseded_at, superseded_by, superseded_by_merge_id, supersede_rule, "
    "report_count, last_reported_at, reopen_count, review_run, created_at"
)

REPORT_FINDING = (
    "SELECT finding_id, outcome, state, report_count, reopen_count FROM ledger.report_finding("
    "p_scope => %(scope)s, p_finding_key => %(finding_key)s, p_title => %(title)s, "
    "p_description => %(description)s, p_paths => %(paths)s, p_kind => %(kind)s, "
    "p_severity => %(severity)s, p_source => %(source)s, p_review_run => %(review_run)s)"
)

REPLACE_FINDINGS = (
    "SELECT added, kept, reopened, still_dismissed, superseded, would_supersede FROM ledger.replace_findings("
    "p_scope => %(scope)s, p_kind => %(kind)s, p_review_run => %(review_run)s, "
    "p_findings => %(findings)s, p_actor => %(actor)s)"
)

DISMISS_FINDING = (
    "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.dismiss_finding("
    "p_finding_id => %(finding_id)s, p_resolution => %(resolution)s, p_actor => %(actor)s, p_reason => %(reason)s)"
)

RESTORE_FINDING = (
    "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.restore_finding("
    "p_finding_id => %(finding_id)s, p_actor => %(actor)s, p_reason => %(reason)s)"
)

READ_FINDING = "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.read_finding(p_finding_id => %(finding_id)s)"

READ_HISTORY = (
    "SELECT at, event, rule, actor, reason, evidence, merge_id, commit_sha, detail, audit_id "
    "FROM ledger.read_history(p_finding_id => %(finding_id)s)"
)

RECORD_INJECTION = (
    "SELECT recorded, already_recorded FROM ledger.record_injection("
    "p_session_id => %(session_id)s, p_finding_ids => %(finding_ids)s)"
)

READ_INJECTIONS = (
    "SELECT session_id, finding_id, injected_at, scope, kind, severity, title, state "
    "FROM ledger.read_injections(p_session_id => %(session_id)s, p_finding_id => %(finding_id)s)"
)

MEASURE_CONVERGENCE = (
    "SELECT session_id, shown, still_active, superseded, dismissed, active_share "
    "FROM ledger.measure_convergence(p_session_id => %(session_id)s)"
)

READ_PROMPT_FINDINGS = (
    "SELECT findings, included_count, included_chars, omitted_count, omitted_chars "
    "FROM ledger.read_prompt_findings(p_scope => %(scope)s, p_kinds => %(kinds)s, "
    "p_max_age => %(max_age)s, p_max_chars => %(max_chars)s)"
)

LISTEN = "LISTEN ledger_finding"


@dataclass(frozen=True)
class ReportResult:
    """What reporting a finding did.

    ``outcome``: ``new``, ``duplicate`` (it was active: the re-report is
    counted), ``reopened`` (it was superseded: active again, audited) or
    ``still_dismissed`` (a person dismissed it: unchanged, re-report counted).
    ``state`` is the finding's state afterwards; the counters are its
    ``report_count`` (reports, the first included) and ``reopen_count``.
    """

    finding_id: int
    outcome: str
    state: str
    report_count: int
    reopen_count: int


@dataclass(frozen=True)
class ReviewResult:
    """Counts of a re-review (``replace_findings``): findings of the new set
    ``added``, ``kept`` (active, present again), ``reopened`` (superseded,
    present again), ``still_dismissed``; findings of the previous set absent
    from the new one ``superseded`` (rule ``rereview``), or
    ``would_supersede`` in a scope whose hygiene mode is ``dry``."""

    added: int
    kept: int
    reopened: int
    still_dismissed: int
    superseded: int
    would_supersede: int


@dataclass(frozen=True)
class FindingLifecycle:
    """A row of ``ledger.finding_lifecycle``: a finding with its derived
    ``state`` (``active``, ``superseded``, ``dismissed``), its dismissal, its
    supersession and its counters."""

    id: int
    scope: str
    finding_key: str | None
    kind: str
    severity: str
    title: str
    state: str
    resolution: str | None
    dismissed_at: datetime | None
    dismissed_by: str | None
    dismissal_reason: str | None
    superseded_at: datetime | None
    superseded_by: str | None
    superseded_by_merge_id: int | None
    supersede_rule: str | None
    report_count: int
    last_reported_at: datetime | None
    reopen_count: int
    review_run: str | None
    created_at: datetime


@dataclass(frozen=True)
class HistoryEvent:
    """One entry of a finding's timeline (``ledger.read_history``).

    ``event``: ``reported`` (the finding row), an audit action
    (``superseded``, ``would_supersede``, ``already_superseded``,
    ``reopened``, ``not_reopened``, ``would_reopen``, ``dismissed``,
    ``restored``, ...) or ``injected`` (``actor`` is then the session).
    ``evidence``: the touched path, review run or reverted sha that decided
    it (the finding's paths for ``reported``); ``audit_id`` is None for
    ``reported`` and ``injected``.
    """

    at: datetime
    event: str
    rule: str | None
    actor: str | None
    reason: str | None
    evidence: str | None
    merge_id: int | None
    commit_sha: str | None
    detail: dict[str, Any] | None
    audit_id: int | None


@dataclass(frozen=True)
class InjectionResult:
    """``recorded``: (session, finding) pairs new to the ledger;
    ``already_recorded``: pairs it already held (no second effect)."""

    recorded: int
    already_recorded: int


@dataclass(frozen=True)
class Injection:
    """A finding injected into a session's prompt, with the finding's
    ``state`` now."""

    session_id: str
    finding_id: int
    injected_at: datetime
    scope: str
    kind: str
    severity: str
    title: str
    state: str


@dataclass(frozen=True)
class Convergence:
    """Of the ``shown`` findings a session was injected with: how many are
    ``still_active``, ``superseded`` or ``dismissed`` now, and
    ``active_share`` = still_active / shown (4 decimals; 0 = all resolved)."""

    session_id: str
    shown: int
    still_active: int
    superseded: int
    dismissed: int
    active_share: Decimal


@dataclass(frozen=True)
class PromptSelection:
    """The findings a prompt builder injects (``findings``, in prompt order)
    and what the character budget left out: ``omitted_count`` findings of
    ``omitted_chars`` characters. ``included_chars`` is the sum of
    ``len(f.prompt_text())`` over ``findings``."""

    findings: list[ActiveFinding]
    included_chars: int
    omitted_count: int
    omitted_chars: int

    @property
    def included_count(self) -> int:
        return len(self.findings)


@dataclass(frozen=True)
class FindingEvent:
    """One ``NOTIFY ledger_finding`` payload: the audit row ``audit_id`` of
    ``finding_id`` in ``scope`` with ``action`` ``superseded``,
    ``reopened``, ``dismissed`` or ``restored``, its ``rule``, the
    ``merge_id`` that caused it (if any) and the ``actor`` (if any)."""

    audit_id: int
    finding_id: int
    scope: str
    action: str
    rule: str | None
    merge_id: int | None
    actor: str | None


def report_finding(
    conn: psycopg.Connection[Any],
    scope: str,
    finding_key: str,
    title: str,
    *,
    description: str | None = None,
    paths: Sequence[str] = (),
    kind: str = "review",
    severity: str = "medium",
    source: str | None = None,
    review_run: str | None = None,
) -> ReportResult:
    """Report a finding identified by ``(scope, finding_key)``
    (``ledger.report_finding``); a re-report never creates a second row.

    A re-report keeps the stored text of the first report. Raises
    ``ValueRequired`` (LD002: scope, key or title missing) and, for a new
    finding, ``PathRejected`` (LD001), ``ValueInvalid`` (LD003),
    ``ValueTooLong`` (LD004).
    """
    params = {
        "scope": scope,
        "finding_key": finding_key,
        "title": title,
        "description": description,
        "paths": list(paths),
        "kind": kind,
        "severity": severity,
        "source": source,
        "review_run": review_run,
    }
    with translate(), conn.cursor(row_factory=class_row(ReportResult)) as cur:
        cur.execute(REPORT_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


def replace_findings(
    conn: psycopg.Connection[Any],
    scope: str,
    review_run: str,
    findings: Sequence[Mapping[str, Any]],
    *,
    kind: str | None = None,
    actor: str | None = None,
) -> ReviewResult:
    """Report a re-review's complete new set (``ledger.replace_findings``).

    ``findings``: mappings with ``finding_key`` and ``title`` (required),
    ``description``, ``paths`` (list of str), ``severity``, ``kind``,
    ``source``. Active findings of ``scope`` (of ``kind`` when given) absent
    from the set are superseded with rule ``rereview``; see
    :class:`ReviewResult`. Raises ``ValueRequired`` (LD002),
    ``ValueInvalid`` (LD003), ``DuplicateInReview`` (LD303), ``PathRejected``
    (LD001), ``ValueTooLong`` (LD004); nothing is written on error.
    """
    params = {
        "scope": scope,
        "kind": kind,
        "review_run": review_run,
        "findings": Jsonb([dict(f) if isinstance(f, Mapping) else f for f in findings]),  # the database validates
        "actor": actor,
    }
    with translate(), conn.cursor(row_factory=class_row(ReviewResult)) as cur:
        cur.execute(REPLACE_FINDINGS, params)
        row = cur.fetchone()
    assert row is not None
    return row


def dismiss_finding(
    conn: psycopg.Connection[Any], finding_id: int, resolution: str, actor: str, reason: str
) -> FindingLifecycle:
    """A person dismisses a finding (``ledger.dismiss_finding``).

    ``resolution``: ``accepted``, ``false_positive``, ``wont_fix`` or
    ``duplicate``. Returns the finding afterwards (state ``dismissed``).
    Raises ``NotFound`` (LD005), ``ValueRequired`` (LD002, actor or reason),
    ``ValueInvalid`` (LD003, resolution), ``InvalidTransition`` (LD302,
    already dismissed).
    """
    params = {"finding_id": finding_id, "resolution": resolution, "actor": actor, "reason": reason}
    with translate(), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(DISMISS_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


def restore_finding(conn: psycopg.Connection[Any], finding_id: int, actor: str, reason: str) -> FindingLifecycle:
    """Undo a supersession or a dismissal (``ledger.restore_finding``); the
    finding is active again. Raises ``NotFound`` (LD005), ``ValueRequired``
    (LD002), ``InvalidTransition`` (LD302, already active)."""
    params = {"finding_id": finding_id, "actor": actor, "reason": reason}
    with translate(), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(RESTORE_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


def read_finding(conn: psycopg.Connection[Any], finding_id: int) -> FindingLifecycle:
    """One finding with its state and counters. Raises ``NotFound`` (LD005)."""
    with translate(), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(READ_FINDING, {"finding_id": finding_id})
        row = cur.fetchone()
    assert row is not None
    return row


def read_history(conn: psycopg.Connection[Any], finding_id: int) -> list[HistoryEvent]:
    """A finding's timeline, oldest first (``ledger.read_history``): reported,
    every audit row, every injection. Raises ``NotFound`` (LD005)."""
    with translate(), conn.cursor(row_factory=class_row(HistoryEvent)) as cur:
        cur.execute(READ_HISTORY, {"finding_id": finding_id})
        return cur.fetchall()


def record_injection(conn: psycopg.Connection[Any], session_id: str, finding_ids: Sequence[int]) -> InjectionResult:
    """Record that ``finding_ids`` were injected into ``session_id``'s prompt;
    idempotent per (session, finding) pair. Raises ``ValueRequired`` (LD002),
    ``NotFound`` (LD005, an unknown finding id)."""
    with translate(), conn.cursor(row_factory=class_row(InjectionResult)) as cur:
        cur.execute(RECORD_INJECTION, {"session_id": session_id, "finding_ids": list(finding_ids)})
        row = cur.fetchone()
    assert row is not None
    return row


def read_injections(
    conn: psycopg.Connection[Any], *, session_id: str | None = None, finding_id: int | None = None
) -> list[Injection]:
    """What ``session_id`` was shown, or which sessions saw ``finding_id``,
    in injection order. Raises ``ValueRequired`` (LD002, neither given),
    ``NotFound`` (LD005, unknown finding)."""
    with translate(), conn.cursor(row_factory=class_row(Injection)) as cur:
        cur.execute(READ_INJECTIONS, {"session_id": session_id, "finding_id": finding_id})
        return cur.fetchall()


def measure_convergence(conn: psycopg.Connection[Any], session_id: str) -> Convergence:
    """The share of what ``session_id`` was shown that is still active.
    Raises ``NotFound`` (LD005) when no injection is recorded for it."""
    with translate(), conn.cursor(row_factory=class_row(Convergence)) as cur:
        cur.execute(MEASURE_CONVERGENCE, {"session_id": session_id})
        row = cur.fetchone()
    assert row is not None
    return row


def read_prompt_findings(
    conn: psycopg.Connection[Any],
    scope: str,
    *,
    kinds: Sequence[str] | None = None,
    max_age: timedelta | None = None,
    max_chars: int | None = None,
) -> PromptSelection:
    """The active findings of ``scope`` for a prompt (``ledger.read_prompt_findings``):
    only ``kinds`` when given, only those reported within ``max_age`` when
    given, most severe then most recent first, cut to ``max_chars``
    characters of ``prompt_text()`` (a prefix cut: a less severe finding
    never displaces a more severe one). Raises ``NotFound`` (LD005, unknown
    scope), ``ValueInvalid`` (LD003, negative budget or age)."""
    params = {
        "scope": scope,
        "kinds": list(kinds) if kinds is not None else None,
        "max_age": max_age,
        "max_chars": max_chars,
    }
    with translate(), conn.cursor() as cur:
        cur.execute(READ_PROMPT_FINDINGS, params)
        row = cur.fetchone()
    assert row is not None
    findings, _count, included_chars, omitted_count, omitted_chars = row
    return PromptSelection(
        findings=[
            ActiveFinding(
                id=f["id"],
                scope=f["scope"],
                finding_key=f["finding_key"],
                kind=f["kind"],
                severity=f["severity"],
                title=f["title"],
                description=f["description"],
                paths=f["paths"],
                source=f["source"],
                created_at=datetime.fromisoformat(f["created_at"]),
            )
            for f in findings
        ],
        included_chars=included_chars,
        omitted_count=omitted_count,
        omitted_chars=omitted_chars,
    )


def listen_findings(conn: psycopg.Connection[Any]) -> None:
    """Subscribe ``conn`` to channel ``ledger_finding`` (``LISTEN``).

    Use a dedicated connection with ``autocommit=True`` (in a transaction the
    subscription starts only at commit); call it before the changes you want
    to hear about, then iterate :func:`finding_events`.
    """
    conn.execute(LISTEN)


def finding_events(
    conn: psycopg.Connection[Any], *, timeout: float | None = None, stop_after: int | None = None
) -> Iterator[FindingEvent]:
    """The notifications received on ``conn`` (after :func:`listen_findings`)
    as :class:`FindingEvent`, in commit order; stops after ``timeout``
    seconds without one or after ``stop_after`` notifications (psycopg's
    ``Connection.notifies``). Notifications of other channels are skipped."""
    for note in conn.notifies(timeout=timeout, stop_after=stop_after):
        if note.channel != CHANNEL:
            continue
        data = json.loads(note.payload)
        yield FindingEvent(
            audit_id=data["audit_id"],
            finding_id=data["finding_id"],
            scope=data["scope"],
            action=data["action"],
            rule=data.get("rule"),
            merge_id=data.get("merge_id"),
            actor=data.get("actor"),
        )
