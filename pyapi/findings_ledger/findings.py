"""Findings: adding one (:func:`add_finding`), the active findings and the
audit (:func:`active_findings`, :func:`read_audit`), and the lifecycle:
identity and re-reports, re-review, dismissal, restore, injections, the
prompt read (and reading a prompt text back), the timeline and notifications.

A thin wrapper over ``sql/findings/`` (``ledger.add_finding``,
``ledger.report_finding``, ``ledger.replace_findings``,
``ledger.dismiss_finding``, ... ; see the
README's "Finding lifecycle" section for the SQL a service writes). The
same conventions as :mod:`findings_ledger.api`: the first argument is the
caller's psycopg 3 connection, nothing here commits, each call is one SQL
statement (its text in :mod:`findings_ledger.queries`), results are frozen
dataclasses of :mod:`findings_ledger.models`, and ledger SQLSTATEs arrive as
typed exceptions from :mod:`findings_ledger.errors`.

States: ``active`` (``superseded_at IS NULL``), ``superseded`` (by a merge,
a re-review, ...), ``dismissed`` (a person decided: ``accepted``,
``false_positive``, ``wont_fix``, ``duplicate``). Every transition writes one
audit row in ``ledger.supersession`` and, for supersede, reopen, dismiss and
restore, sends ``NOTIFY ledger_finding`` with the audit row's id, which
:func:`finding_events` re-reads (see :class:`~findings_ledger.models.FindingEvent`).

Reading a prompt text back: the entries ``ledger.read_prompt_text`` shows
as possibly resolved, as the agent that reads the prompt sees them.

A flagged finding's block in the prompt text ends with one line per touch
shown, oldest first::

    possibly resolved by <sha, 12 digits> (<subject>): verify with ledger.verify_finding(<id>, ...)

and, when more merges touched it than the prompt lists, one line counting
them. :func:`possibly_resolved` returns, per flagged finding, its id and the
latest touch shown: what a verifier judges (``ledger.verify_finding``
supersedes by that touch). The demo's scripted agent and evaluate's
read-time oracle read prompts through it. It is pure text: no database.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import queries
from .errors import checked_arguments, string_list, translate
from .models import (
    ActiveFinding,
    AuditEntry,
    Convergence,
    Finding,
    FindingEvent,
    FindingLifecycle,
    HistoryEvent,
    Injection,
    InjectionResult,
    PromptSelection,
    PromptText,
    ReportResult,
    ReviewResult,
    Touch,
)

#: The channel every supersede, reopen, dismiss and restore is notified on.
CHANNEL = queries.FINDING_CHANNEL

_log = logging.getLogger(__name__)


@checked_arguments
def add_finding(
    conn: psycopg.Connection[Any],
    scope: str,
    title: str,
    *,
    description: str | None = None,
    paths: Sequence[str] = (),
    kind: str = "review",
    severity: str = "medium",
    finding_key: str | None = None,
    source: str | None = None,
    observed_at: datetime | None = None,
    expects: str | None = None,
    task_group: str | None = None,
    resolved_when: Mapping[str, Any] | None = None,
    observed_at_precision: str | None = None,
) -> Finding:
    """Insert one finding (``ledger.add_finding``) and return the stored row.

    ``paths`` are normalised by the database (see the README's table);
    directories end with ``/``; a line suffix (``src/a.py:42``,
    ``src/a.py:40-48``) becomes the finding's ``anchors``. ``observed_at``:
    when the problem was observed (None: now; no older merge retires it);
    ``expects``: ``change`` (None), ``present`` or ``absent``;
    ``task_group``: the task group it was generated for (None: ``source``
    when that is a node id ending in ``:<number>``); ``resolved_when``: the
    finding's check (``{"file_contains": {"path": "f.py", "pattern": "def x"}}``,
    see ``ledger.finding.resolved_when``; its paths are added to ``paths``):
    a merge then retires it only when its tree makes the check hold;
    ``observed_at_precision``: ``instant`` (None) or ``day`` (``observed_at``
    is only known to the day). A bad check raises ``ValueInvalid`` /
    ``ValueTooLong`` naming the part (``finding.resolved_when.all[1].file_contains.pattern``).
    Raises :class:`~findings_ledger.errors.PathRejected`
    (LD001), ``ValueRequired`` (LD002), ``ValueInvalid`` (LD003),
    ``ValueTooLong`` (LD004), ``FindingAlreadyReported`` (LD301, a subclass
    of ``DuplicateFindingKey``) when the key is already used in the scope
    (report it again with ``report_finding``), ``DuplicateFindingKey``
    (23505) only for a concurrent insert of the same new key.
    """
    params = {
        "scope": scope,
        "title": title,
        "description": description,
        "paths": string_list(paths, "paths"),
        "kind": kind,
        "severity": severity,
        "finding_key": finding_key,
        "source": source,
        "observed_at": observed_at,
        "expects": expects,
        "task_group": task_group,
        "resolved_when": None if resolved_when is None else Jsonb(resolved_when),
        "observed_at_precision": observed_at_precision,
    }
    with translate(conn), conn.cursor(row_factory=class_row(Finding)) as cur:
        cur.execute(queries.ADD_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def active_findings(conn: psycopg.Connection[Any], scope: str) -> list[ActiveFinding]:
    """The active findings of ``scope`` in prompt order (most severe, then newest).

    Raises :class:`~findings_ledger.errors.NotFound` (LD005) for an unknown scope.
    """
    with translate(conn), conn.cursor(row_factory=class_row(ActiveFinding)) as cur:
        cur.execute(queries.ACTIVE_FINDINGS, {"scope": scope})
        return cur.fetchall()


@checked_arguments
def read_audit(
    conn: psycopg.Connection[Any],
    scope: str,
    *,
    finding_id: int | None = None,
    merge_id: int | None = None,
) -> list[AuditEntry]:
    """The audit rows of ``scope`` in write order, optionally for one finding
    or one merge, each with its merge's ``commit_sha`` and ``subject``.
    Raises ``NotFound`` (LD005) for an unknown scope."""
    with translate(conn), conn.cursor(row_factory=class_row(AuditEntry)) as cur:
        cur.execute(queries.READ_AUDIT, {"scope": scope, "finding_id": finding_id, "merge_id": merge_id})
        return cur.fetchall()


@checked_arguments
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
    observed_at: datetime | None = None,
    expects: str | None = None,
    task_group: str | None = None,
    resolved_when: Mapping[str, Any] | None = None,
    observed_at_precision: str | None = None,
) -> ReportResult:
    """Report a finding identified by ``(scope, finding_key)``
    (``ledger.report_finding``); a re-report never creates a second row.

    A re-report keeps the stored text of the first report. A new finding's
    ``observed_at`` (None: now), ``expects`` (None: ``change``) and
    ``task_group`` (None: ``source`` when it is a node id ending in
    ``:<number>``), ``resolved_when`` and ``observed_at_precision`` are as
    in :func:`findings_ledger.add_finding`. Raises
    ``ValueRequired`` (LD002: scope, key or title missing) and, for a new
    finding, ``PathRejected`` (LD001), ``ValueInvalid`` (LD003),
    ``ValueTooLong`` (LD004).
    """
    params = {
        "scope": scope,
        "finding_key": finding_key,
        "title": title,
        "description": description,
        "paths": string_list(paths, "paths"),
        "kind": kind,
        "severity": severity,
        "source": source,
        "review_run": review_run,
        "observed_at": observed_at,
        "expects": expects,
        "task_group": task_group,
        "resolved_when": None if resolved_when is None else Jsonb(resolved_when),
        "observed_at_precision": observed_at_precision,
    }
    with translate(conn), conn.cursor(row_factory=class_row(ReportResult)) as cur:
        cur.execute(queries.REPORT_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
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
        "findings": Jsonb([dict(f) if isinstance(f, Mapping) else f
                           for f in string_list(findings, "findings") or []]),  # the database validates
        "actor": actor,
    }
    with translate(conn), conn.cursor(row_factory=class_row(ReviewResult)) as cur:
        cur.execute(queries.REPLACE_FINDINGS, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
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
    with translate(conn), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(queries.DISMISS_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def restore_finding(conn: psycopg.Connection[Any], finding_id: int, actor: str, reason: str) -> FindingLifecycle:
    """Undo a supersession or a dismissal (``ledger.restore_finding``); the
    finding is active again. Raises ``NotFound`` (LD005), ``ValueRequired``
    (LD002), ``InvalidTransition`` (LD302, already active)."""
    params = {"finding_id": finding_id, "actor": actor, "reason": reason}
    with translate(conn), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(queries.RESTORE_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def read_finding(conn: psycopg.Connection[Any], finding_id: int) -> FindingLifecycle:
    """One finding with its state and counters. Raises ``NotFound`` (LD005)."""
    with translate(conn), conn.cursor(row_factory=class_row(FindingLifecycle)) as cur:
        cur.execute(queries.READ_FINDING, {"finding_id": finding_id})
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def read_history(conn: psycopg.Connection[Any], finding_id: int) -> list[HistoryEvent]:
    """A finding's timeline, oldest first (``ledger.read_history``): reported,
    every audit row, every injection. Raises ``NotFound`` (LD005)."""
    with translate(conn), conn.cursor(row_factory=class_row(HistoryEvent)) as cur:
        cur.execute(queries.READ_HISTORY, {"finding_id": finding_id})
        return cur.fetchall()


@checked_arguments
def record_injection(conn: psycopg.Connection[Any], session_id: str, finding_ids: Sequence[int]) -> InjectionResult:
    """Record that ``finding_ids`` were injected into ``session_id``'s prompt;
    idempotent per (session, finding) pair. Raises ``ValueRequired`` (LD002),
    ``NotFound`` (LD005, an unknown finding id)."""
    with translate(conn), conn.cursor(row_factory=class_row(InjectionResult)) as cur:
        cur.execute(queries.RECORD_INJECTION,
                    {"session_id": session_id, "finding_ids": string_list(finding_ids, "finding_ids")})
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def read_injections(
    conn: psycopg.Connection[Any], *, session_id: str | None = None, finding_id: int | None = None
) -> list[Injection]:
    """What ``session_id`` was shown, or which sessions saw ``finding_id``,
    in injection order. Raises ``ValueRequired`` (LD002, neither given),
    ``NotFound`` (LD005, unknown finding)."""
    with translate(conn), conn.cursor(row_factory=class_row(Injection)) as cur:
        cur.execute(queries.READ_INJECTIONS, {"session_id": session_id, "finding_id": finding_id})
        return cur.fetchall()


@checked_arguments
def measure_convergence(conn: psycopg.Connection[Any], session_id: str) -> Convergence:
    """The share of what ``session_id`` was shown that is still active.
    Raises ``NotFound`` (LD005) when no injection is recorded for it."""
    with translate(conn), conn.cursor(row_factory=class_row(Convergence)) as cur:
        cur.execute(queries.MEASURE_CONVERGENCE, {"session_id": session_id})
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def read_prompt_findings(
    conn: psycopg.Connection[Any],
    scope: str,
    *,
    kinds: Sequence[str] | None = None,
    max_age: timedelta | None = None,
    max_chars: int | None = None,
    current_group: str | None = None,
    max_groups: int | None = None,
    max_touches: int = 3,
) -> PromptSelection:
    """The active findings of ``scope`` for a prompt (``ledger.read_prompt_findings``):
    only ``kinds`` when given, only those reported within ``max_age`` when
    given, only those generated at most ``max_groups`` task groups before
    ``current_group`` when given (the drift-review scenario's Option C, on top of
    supersession: a finding of unknown group stays), most severe then most
    recent first, cut to ``max_chars`` characters of ``prompt_text()`` (a
    prefix cut: a less severe finding never displaces a more severe one).
    A flagged finding (merges touched it since its last ``still_true``
    verdict) carries ``touched_count``, its latest ``max_touches`` touches
    (``touched_by``) and their ``touch_lines`` (``possibly resolved by <sha>
    (<subject>): verify with ledger.verify_finding(<id>, ...)``), counted in
    its ``prompt_text()`` and the budget.
    Raises ``NotFound`` (LD005, unknown scope), ``ValueRequired`` (LD002,
    ``max_groups`` without ``current_group``, ``max_touches`` None),
    ``ValueInvalid`` (LD003, negative budget, age or group count, a group
    without a trailing number, ``max_touches`` outside 0-1000)."""
    params = {
        "scope": scope,
        "kinds": string_list(kinds, "kinds", optional=True),
        "max_age": max_age,
        "max_chars": max_chars,
        "current_group": current_group,
        "max_groups": max_groups,
        "max_touches": max_touches,
    }
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.READ_PROMPT_FINDINGS, params)
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
                observed_at=datetime.fromisoformat(f["observed_at"]),
                task_group=f["task_group"],
                touched_count=f.get("touched_count", 0),
                touched_by=tuple(Touch(merge_id=t["merge_id"], sha=t["sha"], subject=t["subject"])
                                 for t in f.get("touched_by", ())),
                touch_lines=tuple(f.get("touch_lines", ())),
            )
            for f in findings
        ],
        included_chars=included_chars,
        omitted_count=omitted_count,
        omitted_chars=omitted_chars,
    )


@checked_arguments
def read_prompt_text(
    conn: psycopg.Connection[Any],
    scope: str,
    max_chars: int | None = None,
    kinds: Sequence[str] | None = None,
    max_touches: int = 3,
    *,
    max_age: timedelta | None = None,
    current_group: str | None = None,
    max_groups: int | None = None,
) -> PromptText:
    """The findings block of a prompt as the database prints it
    (``ledger.read_prompt_text``): the selection of
    :func:`read_prompt_findings` with the same arguments (``kinds``,
    ``max_chars``, ``max_touches``, ``max_age``, ``current_group``,
    ``max_groups``), one block per finding (``[severity] title (finding
    id)``, ``paths: ...``, the description, the touch lines of a flagged
    finding), blocks separated by an empty line. ``len(prompt)`` never
    exceeds ``max_chars``: the labels and empty lines count, and the
    findings after the longest prefix of blocks that fits are counted in
    ``omitted_count``/``omitted_chars`` (the figures in
    :func:`read_prompt_findings`' units). Raises what
    :func:`read_prompt_findings` raises: ``NotFound`` (LD005, unknown
    scope), ``ValueRequired`` (LD002, ``max_touches`` None, ``max_groups``
    without ``current_group``), ``ValueInvalid`` (LD003, negative budget,
    age or group count, ``max_touches`` outside 0-1000, a group without a
    trailing number)."""
    params = {
        "scope": scope,
        "max_chars": max_chars,
        "kinds": string_list(kinds, "kinds", optional=True),
        "max_touches": max_touches,
        "max_age": max_age,
        "current_group": current_group,
        "max_groups": max_groups,
    }
    with translate(conn), conn.cursor(row_factory=class_row(PromptText)) as cur:
        cur.execute(queries.READ_PROMPT_TEXT, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def verify_finding(
    conn: psycopg.Connection[Any], finding_id: int, verdict: str, evidence: str, verifier: str
) -> AuditEntry:
    """An agent's verdict on a finding its prompt showed (``ledger.verify_finding``),
    checked against the code at the moment of use. ``verdict``:
    ``resolved`` supersedes the finding (rule ``verified``) by the latest
    touch it was shown (audit ``superseded``; ``would_supersede`` under
    hygiene mode dry or off), ``still_true`` keeps it and clears its flag
    (audit ``verified_still_true``: later prompts list only touches after
    it). A finding superseded while the call waited for its lock gives
    ``already_superseded``. Returns the audit row written, with the judged
    merge's ``commit_sha`` and ``subject`` (None without a touch). Needs the
    role ledger_agent (others: ``psycopg.errors.InsufficientPrivilege``).
    Raises ``ValueRequired`` (LD002: an argument None or blank),
    ``ValueInvalid`` (LD003: another verdict, a control character in
    ``verifier``), ``ValueTooLong`` (LD004), ``NotFound`` (LD005, unknown
    finding), ``InvalidTransition`` (LD302: the finding is superseded or
    dismissed), ``ScopeDenied`` (LD401)."""
    params = {"finding_id": finding_id, "verdict": verdict, "evidence": evidence, "verifier": verifier}
    with translate(conn), conn.cursor(row_factory=class_row(AuditEntry)) as cur:
        cur.execute(queries.VERIFY_FINDING, params)
        row = cur.fetchone()
    assert row is not None
    return row


@checked_arguments
def listen_findings(conn: psycopg.Connection[Any]) -> None:
    """Subscribe ``conn`` to channel ``ledger_finding`` (``LISTEN``).

    Use a dedicated connection with ``autocommit=True`` (in a transaction the
    subscription starts only at commit) whose role may read the audit
    (``ledger_reader`` or ``ledger_admin``); call it before the changes you
    want to hear about, then iterate :func:`finding_events`.
    """
    conn.execute(queries.LISTEN_FINDINGS)


@checked_arguments
def finding_events(
    conn: psycopg.Connection[Any], *, timeout: float | None = None, stop_after: int | None = None
) -> Iterator[FindingEvent]:
    """The transitions notified on ``conn`` (after :func:`listen_findings`)
    as :class:`FindingEvent`, in the order they arrive (commit order).

    A notification carries only an audit id, and any role may send one, so
    each id is re-read from the audit with ``conn``'s own rights
    (``ledger.read_finding_events``: row-level security applies). A payload
    that is not an audit id is logged (logger ``findings_ledger.findings``,
    WARNING) and skipped; an id that names no transition the connection may
    read (forged, another action, another tenant's) is skipped with a DEBUG
    line. Never raises for a notification's content. A forged notification
    can only repeat a genuine event the connection may read: handle each
    ``audit_id`` once.

    Stops when ``timeout`` seconds have passed (None: never) or after
    ``stop_after`` events (more when several arrive in one packet, as with
    psycopg's ``Connection.notifies``). Notifications of other channels are
    skipped. Between notifications it runs one query on ``conn`` (outside
    autocommit, in a transaction of its own that it commits).
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    yielded = 0
    while stop_after is None or yielded < stop_after:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        notes = list(conn.notifies(timeout=remaining, stop_after=1))
        if not notes:
            return
        ids = [i for i in (_audit_id(n) for n in notes if n.channel == CHANNEL) if i is not None]
        for event in _read_events(conn, ids):
            yield event
            yielded += 1
        if deadline is not None and time.monotonic() >= deadline:
            return


def _audit_id(note: psycopg.Notify) -> int | None:
    """The audit id a notification carries: decimal text (a JSON object with
    an integer ``audit_id``, as servers before this payload sent, is read
    too); None, with a warning, for anything else."""
    text = note.payload.strip()
    if text.isascii() and text.isdigit() and len(text) <= 19:
        number = int(text)
        if 0 < number < 2**63:  # an audit id is a bigint: 9999999999999999999 is not one
            return number
        data = None
    else:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
    value = data.get("audit_id") if isinstance(data, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63:
        return value
    _log.warning("skipped a notification on %s that is not an audit id: %r (sent by backend %d)",
                 note.channel, note.payload[:200], note.pid)
    return None


def _read_events(conn: psycopg.Connection[Any], ids: list[int]) -> list[FindingEvent]:
    """The events of ``ids`` the connection may read, one per id, in the order of ``ids``."""
    if not ids:
        return []
    with translate(conn):
        if conn.autocommit:
            rows = conn.execute(queries.READ_FINDING_EVENTS, {"audit_ids": ids}).fetchall()
        else:
            with conn.transaction():
                rows = conn.execute(queries.READ_FINDING_EVENTS, {"audit_ids": ids}).fetchall()
    found = {row[0]: FindingEvent(*row) for row in rows}
    events = []
    for audit_id in ids:
        if audit_id in found:
            events.append(found[audit_id])
        else:
            _log.debug("skipped notification of audit id %d: no transition this connection may read", audit_id)
    return events


#: a finding's block begins with "[<severity>] <title> (finding <id>)"
_HEADER = re.compile(r"^\[[^\]\n]*\] .* \(finding (\d+)\)$")
#: a touch line (the subject is the merge's first line, so it holds no newline)
_TOUCH = re.compile(
    r"^possibly resolved by ([0-9a-f]{4,64})(?: \((.*)\))?: verify with ledger\.verify_finding\((\d+), "
    r"'resolved' \| 'still_true', evidence, verifier\)$")


@dataclass(frozen=True)
class PromptTouch:
    """A finding a prompt text shows as possibly resolved, and the latest touch it shows."""

    finding_id: int
    #: the merge's commit sha as shown (its first 12 hex digits)
    commit_sha: str
    subject: str | None
    #: how many touch lines the prompt shows for the finding
    touches_shown: int


def possibly_resolved(prompt: str) -> list[PromptTouch]:
    """The flagged findings of ``prompt`` (a ``ledger.read_prompt_text``
    text) in prompt order, each with the latest touch shown. A touch line
    counts only inside the block of the finding it names, so a description
    that quotes such a line does not make another finding look flagged."""
    current: int | None = None
    out: dict[int, PromptTouch] = {}
    for line in prompt.splitlines():
        header = _HEADER.match(line)
        if header:
            current = int(header.group(1))
            continue
        touch = _TOUCH.match(line)
        if touch and current is not None and int(touch.group(3)) == current:
            shown = out[current].touches_shown + 1 if current in out else 1
            out[current] = PromptTouch(current, touch.group(1), touch.group(2), shown)
    return list(out.values())
