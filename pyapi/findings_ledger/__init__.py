"""findings-ledger: findings that retire themselves when merges land.

The logic lives in PostgreSQL (schema ``ledger``); this package is a thin,
typed wrapper over its stored functions, plus the git reader, the CLI and
the test tooling. See README.md and docs/architecture.md.
"""

from .api import active_findings, add_finding, migrate, read_audit, record_merge, set_hygiene_mode
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
    requeue_task,
    start_task,
)
from .errors import (
    DispatchOutsideClaim,
    DuplicateFindingKey,
    DuplicateMerge,
    LedgerError,
    NotFound,
    PathRejected,
    SnapshotWriteRejected,
    TaskFieldFrozen,
    TaskTransitionInvalid,
    ValueInvalid,
    ValueRequired,
    ValueTooLong,
)
from .models import ActiveFinding, AuditEntry, Decision, Finding, MergeResult

__all__ = [
    "ActiveFinding",
    "AuditEntry",
    "Decision",
    "DuplicateFindingKey",
    "DuplicateMerge",
    "Finding",
    "LedgerError",
    "MergeResult",
    "NotFound",
    "PathRejected",
    "ValueInvalid",
    "ValueRequired",
    "ValueTooLong",
    "active_findings",
    "add_finding",
    "migrate",
    "read_audit",
    "record_merge",
    "set_hygiene_mode",
    # task claims (issue 4)
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
    "requeue_task",
    "start_task",
]
