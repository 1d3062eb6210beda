"""Typed results of the Python API: frozen dataclasses, one per row shape.

Field names equal the SQL column names, so ``class_row`` fills them.
Timestamps are timezone-aware ``datetime``; paths are repository-relative
strings, directories ending in ``/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Finding:
    """A row of ``ledger.finding`` (all columns the foundation defines)."""

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


@dataclass(frozen=True)
class ActiveFinding:
    """A row of ``ledger.active_finding``: a finding still injected into prompts."""

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

    def prompt_text(self) -> str:
        """The text a prompt builder injects for this finding (title, then
        description when there is one); its length is what the demo counts."""
        return self.title if not self.description else f"{self.title}\n{self.description}"


@dataclass(frozen=True)
class Decision:
    """One decision the ledger took for a merge (an audit row, summarised).

    ``action``: ``superseded``, ``would_supersede`` (dry mode),
    ``already_superseded`` (a concurrent merge won), ``ambiguous`` (the
    evidence also names another finding), ``candidate`` (a path match the
    scope's policy does not act on), ``mention`` (named, not resolved) and
    ``skipped`` (rule disabled, or a merge on another branch: then one
    decision has ``finding_id`` None).
    ``rule``: ``path``, ``key``, ``slug``, ``keyword`` or ``title``.
    ``evidence``: the touched path or the exact message text that matched.
    ``reason``: why, in words. ``detail``: ``finding_key``, ``slug``,
    ``title``, ``kind`` and ``pieces`` (every piece of evidence with its
    rule, form, text, line, context, verb, outcome and reason).
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
    """A row of ``ledger.supersession``, the audit trail."""

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
