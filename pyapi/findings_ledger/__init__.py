"""findings-ledger: findings that retire themselves when merges land.

The logic lives in PostgreSQL (schema ``ledger``); this package is a thin,
typed wrapper over its stored functions, plus the git reader, the CLI and
the test tooling. See README.md and docs/architecture.md.
"""

from .api import active_findings, add_finding, migrate, read_audit, record_merge, set_hygiene_mode
from .errors import (
    AuditAppendOnly,
    DuplicateFindingKey,
    DuplicateMerge,
    LedgerError,
    NotFound,
    PathRejected,
    ScopeDenied,
    ValueInvalid,
    ValueRequired,
    ValueTooLong,
)
from .models import ActiveFinding, AuditEntry, Decision, Finding, MergeResult
from .security import disable_scope_rls, enable_scope_rls, reconcile, set_scopes

__all__ = [
    "ActiveFinding",
    "AuditAppendOnly",
    "AuditEntry",
    "Decision",
    "DuplicateFindingKey",
    "DuplicateMerge",
    "Finding",
    "LedgerError",
    "MergeResult",
    "NotFound",
    "PathRejected",
    "ScopeDenied",
    "ValueInvalid",
    "ValueRequired",
    "ValueTooLong",
    "active_findings",
    "add_finding",
    "disable_scope_rls",
    "enable_scope_rls",
    "migrate",
    "read_audit",
    "reconcile",
    "record_merge",
    "set_hygiene_mode",
    "set_scopes",
]
