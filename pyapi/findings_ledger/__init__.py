"""findings-ledger: findings that retire themselves when merges land.

The logic lives in PostgreSQL (schema ``ledger``); this package is a thin,
typed wrapper over its stored functions. ``import findings_ledger`` loads the
core only (findings, merges, claims, the lifecycle, matching, security; their
results and errors), which needs psycopg and nothing else: no SQLAlchemy,
alembic, click, rich, pytest, jsonschema, fastjsonschema, frontmatter, yaml
or mcp. The names of the formats (``import_finding``, ``import_findings``,
``workspace_scope``, ``import_sarif``, ``export_sarif``, ``SarifImport``,
``SarifRejected``) are attributes of the package all the same: the first use
imports :mod:`findings_ledger.importers` or :mod:`findings_ledger.sarif`
(PEP 562), which need the ``formats`` extra (``pip install
'findings-ledger[formats]'``); without it that first use raises
:class:`ImportError` naming the extra. ``preview_replay`` is imported the
same way, from the git reader :mod:`findings_ledger.gitlog` (no extra).
Imported on their own: :mod:`findings_ledger.schema` (SQLAlchemy metadata),
:mod:`findings_ledger.cli` (the command line, extra ``cli``),
:mod:`findings_ledger.evaluate` and :mod:`findings_ledger.evaluate_drift`
(the labelled-corpus evaluation; the drift corpora need the ``formats``
extra), :mod:`findings_ledger.demo`
(the drift-review scenario), :mod:`findings_ledger.mcp_server` (extra
``mcp``) and :mod:`findings_ledger.testing` (throwaway cluster, schema dump,
pytest plugin). See README.md, docs/python.md and docs/architecture.md.
"""

import importlib
from typing import TYPE_CHECKING, Any

from . import extras
from .access import SessionScopesWarning, disable_scope_rls, enable_scope_rls, set_scopes
from .api import current_revision, downgrade, head_revision, migrate, set_hygiene_mode
from .checks import answer_recheck, claim_rechecks, pending_file_states, record_file_states
from .claims import (
    AgentTask,
    Claim,
    Issue,
    add_issue,
    cancel_task,
    claim_task,
    complete_task,
    enqueue_task,
    fail_task,
    issue_snapshot,
    render_claim_hint,
    renew_task_lease,
    requeue_task,
    start_task,
)
from .decisions import MatchPolicy, set_match_policy
from .errors import (
    AuditAppendOnly,
    DeleteForbidden,
    DispatchOutsideClaim,
    DowngradeRefused,
    DuplicateFindingKey,
    DuplicateFindingSlug,
    DuplicateInReview,
    DuplicateMerge,
    FileStateConflict,
    FindingAlreadyReported,
    InvalidTransition,
    KeywordRejected,
    LeaseInvalid,
    LedgerError,
    LifecycleInconsistent,
    MergeConflict,
    MergeImmutable,
    MigrationLocked,
    NotFound,
    PathRejected,
    PatternDialect,
    RoleRequired,
    SchemaBehind,
    SchemaNewer,
    ScopeDenied,
    SlugRejected,
    SnapshotWriteRejected,
    TaskFieldFrozen,
    TaskTransitionInvalid,
    ValueInvalid,
    ValueRequired,
    ValueTooLong,
)
from .findings import (
    Convergence,
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
    active_findings,
    add_finding,
    dismiss_finding,
    finding_events,
    listen_findings,
    measure_convergence,
    read_audit,
    read_finding,
    read_history,
    read_injections,
    read_prompt_findings,
    read_prompt_text,
    record_injection,
    replace_findings,
    report_finding,
    restore_finding,
    verify_finding,
)
from .merges import reconcile, record_merge, record_merges
from .models import ActiveFinding, AuditEntry, Decision, Finding, ImportReport, MergeResult

if TYPE_CHECKING:  # for type checkers only: at run time these come from __getattr__ below
    from .gitlog import preview_replay
    from .importers import import_finding, import_findings, workspace_scope
    from .sarif import SarifImport, SarifRejected, export_sarif, import_sarif

# name -> (submodule, extra): the names imported on first use, and the extra
# whose packages that submodule needs (None: the core's own)
_LAZY: dict[str, tuple[str, str | None]] = {
    "preview_replay": ("gitlog", None),
    "import_finding": ("importers", "formats"),
    "import_findings": ("importers", "formats"),
    "workspace_scope": ("importers", "formats"),
    "import_sarif": ("sarif", "formats"),
    "export_sarif": ("sarif", "formats"),
    "SarifImport": ("sarif", "formats"),
    "SarifRejected": ("sarif", "formats"),
}


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported from its submodule on first use
    (PEP 562) and kept as a package attribute. Raises :class:`ImportError`
    naming the extra when one of its packages is not installed, and
    :class:`AttributeError` for any other unknown name."""
    try:
        submodule, extra = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    if extra is not None:
        extras.require(extra, f"findings_ledger.{name}")
    value = getattr(importlib.import_module(f".{submodule}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The package's names, the lazy ones included."""
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "ActiveFinding",
    "AuditAppendOnly",
    "AuditEntry",
    "Decision",
    "DowngradeRefused",
    "MigrationLocked",
    "SchemaBehind",
    "SchemaNewer",
    "DuplicateFindingKey",
    "DuplicateFindingSlug",
    "DuplicateMerge",
    "Finding",
    "ImportReport",
    "KeywordRejected",
    "LedgerError",
    "MatchPolicy",
    "MergeConflict",
    "MergeImmutable",
    "MergeResult",
    "NotFound",
    "PathRejected",
    "ScopeDenied",
    "RoleRequired",
    "SlugRejected",
    "LeaseInvalid",
    "FileStateConflict",
    "PatternDialect",
    "ValueInvalid",
    "ValueRequired",
    "ValueTooLong",
    "active_findings",
    "add_finding",
    "answer_recheck",
    "claim_rechecks",
    "pending_file_states",
    "record_file_states",
    "current_revision",
    "disable_scope_rls",
    "downgrade",
    "enable_scope_rls",
    "head_revision",
    "import_finding",
    "import_findings",
    "import_sarif",
    "export_sarif",
    "SarifImport",
    "SarifRejected",
    "migrate",
    "preview_replay",
    "read_audit",
    "reconcile",
    "record_merge",
    "record_merges",
    "set_hygiene_mode",
    "set_scopes",
    "SessionScopesWarning",
    # task claims
    "AgentTask",
    "Claim",
    "DispatchOutsideClaim",
    "Issue",
    "SnapshotWriteRejected",
    "TaskFieldFrozen",
    "TaskTransitionInvalid",
    "add_issue",
    "cancel_task",
    "claim_task",
    "complete_task",
    "enqueue_task",
    "fail_task",
    "issue_snapshot",
    "render_claim_hint",
    "renew_task_lease",
    "requeue_task",
    "start_task",
    # finding lifecycle
    "Convergence",
    "DeleteForbidden",
    "DuplicateInReview",
    "FindingAlreadyReported",
    "FindingEvent",
    "FindingLifecycle",
    "HistoryEvent",
    "Injection",
    "InjectionResult",
    "InvalidTransition",
    "LifecycleInconsistent",
    "PromptSelection",
    "PromptText",
    "ReportResult",
    "ReviewResult",
    "Touch",
    "dismiss_finding",
    "finding_events",
    "listen_findings",
    "measure_convergence",
    "read_finding",
    "read_history",
    "read_injections",
    "read_prompt_findings",
    "read_prompt_text",
    "record_injection",
    "replace_findings",
    "report_finding",
    "restore_finding",
    "verify_finding",
    "set_match_policy",
    "workspace_scope",
]
