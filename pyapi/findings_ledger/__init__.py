"""findings-ledger: findings that retire themselves when merges land.

The logic lives in PostgreSQL (schema ``ledger``); this package is a thin,
typed wrapper over its stored functions, plus the git reader, the CLI and
the test tooling. See README.md and docs/architecture.md.
"""

from .api import active_findings, add_finding, migrate, read_audit, record_merge, set_hygiene_mode
from .errors import (
    DuplicateFindingKey,
    DuplicateFindingSlug,
    DuplicateMerge,
    KeywordRejected,
    LedgerError,
    NotFound,
    PathRejected,
    SlugRejected,
    ValueInvalid,
    ValueRequired,
    ValueTooLong,
)
from .importers import ImportReport, import_finding, import_findings, workspace_scope
from .matching import MatchPolicy, preview_replay, set_match_policy
from .models import ActiveFinding, AuditEntry, Decision, Finding, MergeResult

__all__ = [
    "ActiveFinding",
    "AuditEntry",
    "Decision",
    "DuplicateFindingKey",
    "DuplicateFindingSlug",
    "DuplicateMerge",
    "Finding",
    "ImportReport",
    "KeywordRejected",
    "LedgerError",
    "MatchPolicy",
    "MergeResult",
    "NotFound",
    "PathRejected",
    "SlugRejected",
    "ValueInvalid",
    "ValueRequired",
    "ValueTooLong",
    "active_findings",
    "add_finding",
    "import_finding",
    "import_findings",
    "migrate",
    "preview_replay",
    "read_audit",
    "record_merge",
    "set_hygiene_mode",
    "set_match_policy",
    "workspace_scope",
]
