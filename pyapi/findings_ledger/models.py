"""Typed results of the Python API: every frozen dataclass a function of
:mod:`findings_ledger.api`, :mod:`~findings_ledger.claims`,
:mod:`~findings_ledger.findings`, :mod:`~findings_ledger.decisions`,
:mod:`~findings_ledger.importers` or :mod:`~findings_ledger.access` returns.

Row shapes have field names equal to the SQL column names of their statement
in :mod:`findings_ledger.queries`, so ``class_row`` fills them. Timestamps
are timezone-aware ``datetime``; paths are repository-relative strings,
directories ending in ``/``.

Not here: inputs (the git reader's :class:`findings_ledger.gitlog.GitMerge`)
and the demo's report types (:mod:`findings_ledger.demo`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

# --- findings, merges, the audit ------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """A row of ``ledger.finding``: its identity, text and supersession
    columns, and what the decisions read: ``observed_at`` (when the problem was observed),
    ``expects`` (``change``, ``present`` or ``absent``), ``anchors``
    (``{path: [first_line, last_line]}`` or None), ``task_group``,
    ``resolved_when`` (the finding's check: the closed grammar of
    ``ledger.finding.resolved_when``, or None) and ``observed_at_precision``
    (``instant`` or ``day``)."""

    id: int
    scope: str
    finding_key: str | None
    kind: str
    severity: str
    title: str
    description: str | None
    paths: list[str]
    source: str | None
    created_at: datetime
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    superseded_by_merge_id: int | None = None
    supersede_rule: str | None = None
    observed_at: datetime | None = None
    expects: str = "change"
    anchors: dict[str, list[int]] | None = None
    task_group: str | None = None
    resolved_when: dict[str, Any] | None = None
    observed_at_precision: str = "instant"


@dataclass(frozen=True)
class Touch:
    """A merge that touched a flagged finding (touch mode flag: the finding
    stayed active, the audit says ``flagged``): its ``merge_id``, ``sha``
    (the commit sha) and ``subject`` (``ledger._commit_subject`` of its
    message: first visible line, no control or format characters, at most
    120 characters; None when the message has none)."""

    merge_id: int
    sha: str
    subject: str | None


@dataclass(frozen=True)
class ActiveFinding:
    """A row of ``ledger.active_finding``: a finding still injected into prompts.

    Filled by :func:`findings_ledger.read_prompt_findings` for a flagged
    finding (merges touched it since its last ``still_true`` verdict):
    ``touched_count`` (all those touches), ``touched_by`` (the latest
    ``max_touches`` of them, oldest first) and ``touch_lines`` (the lines the
    prompt carries for them, each naming ``ledger.verify_finding(<id>, ...)``,
    then one counting the touches not listed). Empty for every other
    finding and for :func:`findings_ledger.active_findings`."""

    id: int
    scope: str
    finding_key: str | None
    kind: str
    severity: str
    title: str
    description: str | None
    paths: list[str]
    source: str | None
    created_at: datetime
    observed_at: datetime | None = None  # filled by read_prompt_findings
    task_group: str | None = None  # filled by read_prompt_findings
    touched_count: int = 0  # filled by read_prompt_findings
    touched_by: tuple[Touch, ...] = ()  # filled by read_prompt_findings
    touch_lines: tuple[str, ...] = ()  # filled by read_prompt_findings

    @property
    def flagged(self) -> bool:
        """Merges touched this finding since its last ``still_true`` verdict:
        it may be resolved; the agent that reads it verifies it
        (:func:`findings_ledger.verify_finding`)."""
        return self.touched_count > 0

    def prompt_text(self) -> str:
        """The text a prompt builder injects for this finding, what the budget
        of ``ledger.read_prompt_findings`` counts: the title, the description
        when there is one, and the touch lines of a flagged finding, one per
        line; its length is the finding's ``chars`` (and what the demo
        counts)."""
        return "\n".join([self.title, *([self.description] if self.description else []), *self.touch_lines])


@dataclass(frozen=True)
class Decision:
    """One decision the ledger took for a merge (an audit row, summarised).

    ``action``: ``superseded``, ``would_supersede`` (dry mode),
    ``already_superseded`` (a concurrent merge won), ``ambiguous`` (the
    evidence also names another finding), ``anchor_moved`` (the merge changed
    lines above the finding's anchor: it moved; ``detail.anchor_moves``
    ``[{path, from, to}]``, read from the merge's anchor record, or, after a
    followed rename or with other evidence about the finding, its own row
    with ``anchors_after``, ``paths_after`` and ``pieces``), ``candidate``
    (a path match the scope's policy does not act on, or a present/absent
    finding the merge's change kinds cannot decide),
    ``mention`` (named, not resolved), ``skipped`` (rule disabled,
    or a merge on another branch: then one decision has ``finding_id``
    None) and ``not_before_observed`` (the merge is older than the
    finding's ``observed_at``).
    ``rule``: ``path``, ``key``, ``slug``, ``keyword`` or ``title``.
    ``evidence``: the touched path or the exact message text that matched.
    ``reason``: why, in words. ``detail``: ``finding_key``, ``slug``,
    ``title``, ``kind`` and ``pieces`` (every piece of evidence with its
    rule, form, text, line, context, verb, outcome and reason). A merge that
    touched an anchored file away from its lines and moved nothing decides
    nothing for that finding: no decision, no audit row.
    """

    finding_id: int | None
    action: str
    rule: str | None
    evidence: str | None
    detail: dict[str, Any] | None = None
    reason: str | None = None


@dataclass(frozen=True)
class MergeResult:
    """What recording one merge did.

    ``recorded`` is False for a redelivery (the merge was already there and
    had no second effect); ``decisions`` are then the original ones.
    """

    merge_id: int
    recorded: bool
    decisions: list[Decision] = field(default_factory=list)

    @property
    def superseded(self) -> list[int]:
        """Ids of the findings this merge superseded."""
        return [d.finding_id for d in self.decisions if d.action == "superseded" and d.finding_id is not None]

    def by_action(self, action: str) -> list[Decision]:
        """The decisions with this ``action`` (``mention``, ``ambiguous``, ...)."""
        return [d for d in self.decisions if d.action == action]

    @property
    def would_supersede(self) -> list[int]:
        """Ids of the findings this merge would have superseded (dry mode)."""
        return [d.finding_id for d in self.decisions if d.action == "would_supersede" and d.finding_id is not None]


@dataclass(frozen=True)
class AuditEntry:
    """A row of the audit trail (``ledger.read_audit``), with the commit
    (``commit_sha``) and ``subject`` (first line of its message) of the
    merge that wrote it (None for rows no merge wrote). A merge's anchor
    record (one row of ``ledger.supersession``) is an ``anchor_moved``
    entry per finding it names, all with the record's ``id``."""

    id: int
    scope: str
    finding_id: int | None
    merge_id: int | None
    action: str
    rule: str | None
    evidence: str | None
    detail: dict[str, Any] | None
    actor: str | None
    reason: str | None
    created_at: datetime
    commit_sha: str | None = None
    subject: str | None = None


# --- message matching: policy and imports --------------------------------------


@dataclass(frozen=True)
class MatchPolicy:
    """A scope's matching policy (columns of ``ledger.scope``).

    ``enabled_rules``: the evidence rules in force (path, key, slug, keyword,
    title); ``path_supersede_kinds``: finding kinds the path rule
    supersedes (others: candidate only; ``*`` = all); ``slug_mention_resolves``:
    whether a bare slug mention resolves; ``default_branch``: merges on
    other branches are skipped (None: no check); ``line_context``: lines of
    context around a finding's anchor within which a hunk changes it;
    ``touch_modes``: what a resolving touch does to a finding without a
    check, per kind (``{"drift": "recheck", "*": "flag"}``; a kind not
    listed and no ``*``: ``flag`` for ``drift``, ``retire`` for every other
    kind, ``ledger._default_touch_mode``).
    """

    scope: str
    hygiene_mode: str
    enabled_rules: list[str]
    path_supersede_kinds: list[str]
    slug_mention_resolves: bool
    default_branch: str | None
    line_context: int = 0
    touch_modes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FileStateOutcome:
    """What ``ledger.record_file_states`` settled for one request of the
    merge: ``outcome`` ``held`` (the finding was superseded by this merge,
    rule ``check``), ``failed`` (audited ``check_failed``), ``moot`` (retired
    earlier), ``overruled`` (held on the tree of a merge before a person's
    later decision), ``error`` (a part could not be evaluated: audited
    ``check_error`` with the reason; the finding stays), ``waiting``
    (answered; an earlier request of the finding is pending) or ``pending``
    (not all its paths answered); ``part``: the part of the check that held,
    failed or could not be evaluated (``all[0].file_contains``)."""

    finding_id: int
    outcome: str
    part: str | None = None


@dataclass(frozen=True)
class PendingFileState:
    """A row of ``ledger.pending_file_state``: the ``paths`` whose state at
    ``commit_sha`` the check of ``finding_id`` needs (directories end in
    ``/``); answer with :func:`findings_ledger.record_file_states`."""

    merge_id: int
    commit_sha: str
    scope: str
    finding_id: int
    paths: list[str]
    requested_at: datetime
    request_id: int


@dataclass(frozen=True)
class RecheckRequest:
    """A row of ``ledger.recheck_request``: a merge that touched a file of
    ``finding_id`` (without a check) under touch mode ``recheck``;
    ``verifier`` and ``lease_until`` once claimed, ``resolved`` and
    ``evidence`` once answered; ``outcome`` once settled: ``resolved`` (it
    retired the finding), ``kept``, ``moot`` (the finding was retired
    otherwise first), ``overruled`` (a person decided about the finding
    after that merge); None while open or waiting for an earlier request
    of the finding."""

    id: int
    scope: str
    finding_id: int
    merge_id: int
    requested_at: datetime
    verifier: str | None = None
    lease_until: datetime | None = None
    answered_at: datetime | None = None
    resolved: bool | None = None
    evidence: str | None = None
    outcome: str | None = None


@dataclass(frozen=True)
class ClaimedRecheck:
    """A recheck request handed to ``verifier`` by ``ledger.claim_rechecks``
    until ``lease_until``, with what a verifier needs: the finding's
    ``title``, ``description``, ``paths``, ``kind`` and ``severity``, and the
    merge's ``commit_sha`` and ``subject`` (the message's first line, control
    and format characters dropped, capped; None when it has no visible
    character). Answer it with :func:`findings_ledger.answer_recheck`
    (``id``, under the same ``verifier``)."""

    id: int
    scope: str
    finding_id: int
    merge_id: int
    requested_at: datetime
    verifier: str
    lease_until: datetime
    title: str
    description: str | None
    paths: list[str]
    kind: str
    severity: str
    commit_sha: str
    subject: str | None


@dataclass(frozen=True)
class ImportedFinding:
    """One finding as ``ledger.import_finding`` left it: ``status`` is
    ``inserted``, ``updated``, ``unchanged`` or ``retired`` (already
    superseded or dismissed: left alone)."""

    id: int
    finding_key: str | None
    slug: str | None
    status: str


@dataclass(frozen=True)
class ImportedFile:
    """A file (or drift entry, ``file#drift_findings[i]``) and its finding."""

    name: str
    finding: ImportedFinding


@dataclass(frozen=True)
class SkippedFile:
    """A file (or drift entry) that was not imported, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class ImportReport:
    """What an import did: ``imported`` in file-name order, ``skipped`` with
    reasons, ``undated``: the names of the drift-review entries that carried
    no date and were given none (observed now)."""

    imported: list[ImportedFile] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    undated: list[str] = field(default_factory=list)

    def count(self, status: str) -> int:
        """How many imported findings have this status."""
        return sum(1 for i in self.imported if i.finding.status == status)


# --- task claims -----------------------------------------------------------------


@dataclass(frozen=True)
class Issue:
    """A row of ``ledger.issue``. ``title`` and ``description`` are exactly
    as written (never trimmed: snapshots hash their bytes)."""

    id: int
    scope: str
    title: str
    description: str | None
    status: str
    assignee_type: str | None
    assignee_id: str | None
    priority: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class AgentTask:
    """A row of ``ledger.agent_task``: one agent run on an issue.

    ``status``: queued, dispatched, running, completed, failed, cancelled.
    ``issue_snapshot``: ``{"v", "title_sha256", "description_sha256"}`` as the
    claim saw the issue (hashes only), or None (never claimed, lost CAS,
    written before the column existed). ``dispatch_count``: how many times
    the task was claimed (the CAS token).
    """

    id: int
    issue_id: int
    agent_id: str
    runtime_id: str
    status: str
    session_id: str | None
    rerun_of_task_id: int | None
    force_fresh_session: bool
    failure_reason: str | None
    dispatch_count: int
    created_at: datetime
    dispatched_at: datetime | None
    started_at: datetime | None
    completed_at: datetime | None
    issue_snapshot: dict[str, Any] | None


@dataclass(frozen=True)
class Claim:
    """What ``ledger.claim_task`` returns for the task it dispatched.

    ``resume_session_id`` / ``resumed_task_id``: the provider session to
    resume and the earlier row it comes from (None: a fresh session).
    ``anchor_task_id``: that row when it proves delivery (completed, started).
    ``issue_state_delta_known``: whether the issue body was compared;
    ``issue_changed_fields``: ``[]`` (unchanged) or some of ``title``,
    ``description`` in that order when known, None when unknown.
    ``delta_basis``: why: ``compared``, ``fresh_session``,
    ``nothing_resumed``, ``not_delivered``, ``no_snapshot``, ``not_comparable``.
    ``issue_status``, ``issue_assignee_*``, ``issue_priority``: current values,
    returned every time and never compared.
    ``lease_expires_at``: until when the claim holds the task (None: claimed
    without a lease); renew it with :func:`findings_ledger.renew_task_lease`.
    ``reclaimed_task_id``: the task whose lease had expired and that this
    claim took over (it is failed with reason ``lease_expired``; this task is
    a rerun of it), None for a queued task.
    """

    task_id: int
    issue_id: int
    agent_id: str
    runtime_id: str
    dispatch_count: int
    dispatched_at: datetime
    rerun_of_task_id: int | None
    force_fresh_session: bool
    resume_session_id: str | None
    resumed_task_id: int | None
    anchor_task_id: int | None
    issue_status: str
    issue_assignee_type: str | None
    issue_assignee_id: str | None
    issue_priority: str
    issue_state_delta_known: bool
    issue_changed_fields: list[str] | None
    delta_basis: str
    lease_expires_at: datetime | None = None
    reclaimed_task_id: int | None = None


# --- finding lifecycle -----------------------------------------------------------


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
    ``omitted_chars`` characters (their titles and descriptions).
    ``included_chars`` is the sum of ``len(f.prompt_text())`` over
    ``findings`` (touch lines included)."""

    findings: list[ActiveFinding]
    included_chars: int
    omitted_count: int
    omitted_chars: int

    @property
    def included_count(self) -> int:
        return len(self.findings)


@dataclass(frozen=True)
class PromptText:
    """The findings block of a prompt as the database prints it
    (``ledger.read_prompt_text``): ``prompt``, one block per finding
    (``[severity] title (finding id)``, ``paths: ...``, the description, the
    touch lines of a flagged finding), blocks separated by an empty line;
    ``len(prompt)`` is within the budget, labels and empty lines counted:
    the findings of :class:`PromptSelection`'s selection after the longest
    prefix of blocks that fits are counted as omitted; the figures are in
    :class:`PromptSelection`'s units (``included_chars``: title,
    description and touch-line characters of the printed findings)."""

    prompt: str
    included_count: int
    included_chars: int
    omitted_count: int
    omitted_chars: int


@dataclass(frozen=True)
class FindingEvent:
    """One transition notified on ``ledger_finding``, as re-read from the
    audit (``ledger.read_finding_events``; the notification carries only
    ``audit_id``): the audit row ``audit_id`` of ``finding_id`` in ``scope``
    with ``action`` ``superseded``, ``reopened``, ``dismissed`` or
    ``restored``, its ``rule``, the ``merge_id`` that caused it (if any) and
    the ``actor`` (if any)."""

    audit_id: int
    finding_id: int
    scope: str
    action: str
    rule: str | None
    merge_id: int | None
    actor: str | None


@dataclass(frozen=True)
class CheckProblem:
    """A problem ``findings-ledger checks lint`` found in a reviewer's check:
    ``field`` the check's JSON path in the review
    (``$.drift_findings[2].resolved_when``), ``part`` the part within it as
    ``ledger._eval_check`` names parts (``all[1].file_contains``; ``''`` for
    the whole check), ``level`` ``error`` or ``warning``, ``problem`` what
    is wrong (the ledger's words)."""

    field: str
    part: str
    level: str
    problem: str

    @property
    def where(self) -> str:
        """The field and the part as one JSON path."""
        return f"{self.field}.{self.part}" if self.part else self.field
