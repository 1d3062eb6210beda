"""SQLSTATE -> exception mapping, in exactly one place.

Every domain error the ledger raises in PostgreSQL has its own SQLSTATE in
the project class ``LD`` (docs/errors.md lists them with their rules). The
Python API runs every statement through :func:`translate`, so callers catch
typed exceptions; the psycopg error stays attached as ``__cause__`` and its
SQLSTATE as ``.sqlstate``.

Code ranges: LD0xx foundation, LD1xx message matching, LD2xx claims,
LD3xx lifecycle, LD4xx security.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg


class LedgerError(Exception):
    """Base class of every error the ledger raises.

    ``sqlstate`` is the PostgreSQL SQLSTATE (``LD001`` ...), ``hint`` the
    server's HINT when it sent one.
    """

    sqlstate: str | None = None

    def __init__(self, message: str, sqlstate: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        if sqlstate is not None:
            self.sqlstate = sqlstate
        self.hint = hint


class PathRejected(LedgerError):
    """LD001: a path that cannot be a repository-relative path."""

    sqlstate = "LD001"


class ValueRequired(LedgerError):
    """LD002: a required field is NULL or blank."""

    sqlstate = "LD002"


class ValueInvalid(LedgerError):
    """LD003: a field's value is malformed or not one of the allowed values."""

    sqlstate = "LD003"


class ValueTooLong(LedgerError):
    """LD004: a field exceeds its documented length or count limit."""

    sqlstate = "LD004"


class NotFound(LedgerError):
    """LD005: an unknown scope, finding, merge, issue or task."""

    sqlstate = "LD005"


class DuplicateMerge(LedgerError):
    """23505 on ledger.merge: a plain INSERT of an already recorded merge.

    Redeliver with ``INSERT ... ON CONFLICT DO NOTHING`` (what
    :func:`findings_ledger.record_merge` does) instead.
    """

    sqlstate = "23505"


class DuplicateFindingKey(LedgerError):
    """23505 on ledger.finding: the finding_key is already used in the scope."""

    sqlstate = "23505"


class ScopeDenied(LedgerError):
    """LD401: per-scope row-level security is on and the scope is not one of
    the connection's scopes (the session setting ``ledger.scopes``)."""

    sqlstate = "LD401"


class AuditAppendOnly(LedgerError):
    """LD402: an UPDATE, DELETE or TRUNCATE of the audit (ledger.supersession)
    by a role other than the table owner."""

    sqlstate = "LD402"


#: SQLSTATE -> exception class. Later capabilities add their codes here.
SQLSTATE_ERRORS: dict[str, type[LedgerError]] = {
    "LD001": PathRejected,
    "LD002": ValueRequired,
    "LD003": ValueInvalid,
    "LD004": ValueTooLong,
    "LD005": NotFound,
    "LD401": ScopeDenied,
    "LD402": AuditAppendOnly,
}

#: Unique constraints -> exception class for 23505 unique_violation.
CONSTRAINT_ERRORS: dict[str, type[LedgerError]] = {
    "merge_scope_commit_sha_key": DuplicateMerge,
    "finding_scope_finding_key_key": DuplicateFindingKey,
}


def error_for(exc: psycopg.Error) -> LedgerError | None:
    """The typed ledger error for a psycopg error, or None if it is not one."""
    state = exc.sqlstate
    if state is None:
        return None
    diag = exc.diag
    message = diag.message_primary or str(exc)
    cls = SQLSTATE_ERRORS.get(state)
    if cls is None and state == "23505":
        cls = CONSTRAINT_ERRORS.get(diag.constraint_name or "")
    if cls is None and state.startswith("LD"):
        cls = LedgerError
    if cls is None:
        return None
    return cls(message, sqlstate=state, hint=diag.message_hint)


@contextmanager
def translate() -> Iterator[None]:
    """Re-raise ledger SQLSTATEs from psycopg as typed :class:`LedgerError`."""
    try:
        yield
    except psycopg.Error as exc:
        err = error_for(exc)
        if err is None:
            raise
        raise err from exc
