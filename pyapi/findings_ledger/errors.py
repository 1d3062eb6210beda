"""The ledger's exceptions and the translation of psycopg errors into them.

Every domain error the ledger raises in PostgreSQL has its own SQLSTATE in
the project class ``LD`` (docs/errors.md lists them with their rules). Each
exception class declares its code once, as its ``sqlstate`` class attribute
(and, for PostgreSQL's ``23505 unique_violation``, the unique ``constraint``
it stands for); :data:`SQLSTATE_ERRORS` and :data:`CONSTRAINT_ERRORS` are
built from those declarations when the classes are defined. The Python API
runs every statement through :func:`translate`, so callers catch typed
exceptions; the psycopg error stays attached as ``__cause__`` and its
SQLSTATE as ``.sqlstate``.

Code ranges: LD0xx foundation, LD1xx message matching, LD2xx claims,
LD3xx lifecycle, LD4xx security, LD5xx migrations.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import psycopg

_BY_SQLSTATE: dict[str, type[LedgerError]] = {}
_BY_CONSTRAINT: dict[str, type[LedgerError]] = {}


class LedgerError(Exception):
    """Base class of every error the ledger raises.

    ``sqlstate`` is the PostgreSQL SQLSTATE (``LD001`` ...), ``hint`` the
    server's HINT when it sent one.

    A subclass that sets ``sqlstate`` in its own body is registered in
    :data:`SQLSTATE_ERRORS` under that code; one that also sets
    ``constraint`` is registered in :data:`CONSTRAINT_ERRORS` under the
    constraint's name instead (``23505`` is shared by every unique
    constraint). Declaring a code or a constraint twice raises ``TypeError``.
    """

    sqlstate: str | None = None
    #: The unique constraint whose ``23505`` this class stands for (None: not a 23505 class).
    constraint: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "constraint" in own:
            _register(_BY_CONSTRAINT, own["constraint"], cls)
        elif "sqlstate" in own:
            _register(_BY_SQLSTATE, own["sqlstate"], cls)

    def __init__(self, message: str, sqlstate: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        if sqlstate is not None:
            self.sqlstate = sqlstate
        self.hint = hint


def _register(registry: dict[str, type[LedgerError]], key: str, cls: type[LedgerError]) -> None:
    if key in registry:
        raise TypeError(f"{cls.__name__}: {key} is already declared by {registry[key].__name__}")
    registry[key] = cls


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


class MergeImmutable(LedgerError):
    """LD006: an UPDATE of a recorded merge (also ``INSERT ... ON CONFLICT
    DO UPDATE``). Merges are recorded once: redeliver with ``ON CONFLICT DO
    NOTHING`` (what :func:`findings_ledger.record_merge` does)."""

    sqlstate = "LD006"


class MergeConflict(LedgerError):
    """LD007: a commit redelivered with other paths, message or branch than
    the scope recorded for it (an abbreviated sha is the same commit), or
    an abbreviated sha that matches several recorded merges."""

    sqlstate = "LD007"


class DuplicateMerge(LedgerError):
    """23505 on ledger.merge: a plain INSERT of an already recorded merge.

    Redeliver with ``INSERT ... ON CONFLICT DO NOTHING`` (what
    :func:`findings_ledger.record_merge` does) instead.
    """

    sqlstate = "23505"
    constraint = "merge_scope_commit_sha_key"


class DuplicateFindingKey(LedgerError):
    """23505 on ledger.finding: the finding_key is already used in the scope."""

    sqlstate = "23505"
    constraint = "finding_scope_finding_key_key"


class DuplicateFindingSlug(LedgerError):
    """23505 on ledger.finding: the slug already belongs to another finding of the scope."""

    sqlstate = "23505"
    constraint = "finding_scope_slug_key"


class KeywordRejected(LedgerError):
    """LD101: a strong keyword that is not one distinctive token (a bare
    topic word such as ``dispatcher`` is never evidence)."""

    sqlstate = "LD101"


class SlugRejected(LedgerError):
    """LD102: a finding slug that is not one token (letters, digits, ``_``,
    inner ``-`` or ``.``)."""

    sqlstate = "LD102"


class LeaseInvalid(LedgerError):
    """LD103: a lease not held. An answer to a recheck request
    (``ledger.answer_recheck``) whose lease is not held: never claimed,
    expired, another verifier's, or answered before with another answer; a
    renewal of a task's lease (``ledger.renew_task_lease``) by another
    runtime, or of a task not dispatched or running (never claimed, ended,
    or taken over by a claim after its lease expired). Nothing is written."""

    sqlstate = "LD103"


class FileStateConflict(LedgerError):
    """LD104: ``ledger.record_file_states`` got a state for a path that was
    answered before for the same merge with another state (a file's state at
    a commit does not change). Nothing is written."""

    sqlstate = "LD104"


class PatternDialect(ValueInvalid):
    """LD105: a check's pattern uses a construct of another regular-expression
    dialect (Python's ``re``, PCRE) that PostgreSQL's ARE lacks and that has
    no exact ARE form: ``\\p{L}``, an atomic group, a possessive quantifier,
    flags after the start, ... The message names each construct, its
    position in the pattern and what to write instead. (Constructs with an
    exact ARE form, such as ``\\b``, are rewritten on write, not refused.)
    A :class:`ValueInvalid`. Nothing is written."""

    sqlstate = "LD105"


class TaskTransitionInvalid(LedgerError):
    """LD201: an agent_task status change the task machine does not allow
    (e.g. starting a task that is not dispatched, or a new task not queued)."""

    sqlstate = "LD201"


class DispatchOutsideClaim(LedgerError):
    """LD202: a task dispatched (or its dispatch bookkeeping changed) other
    than by ``ledger.claim_task``."""

    sqlstate = "LD202"


class SnapshotWriteRejected(LedgerError):
    """LD203: ``agent_task.issue_snapshot`` written by anything but the claim."""

    sqlstate = "LD203"


class TaskFieldFrozen(LedgerError):
    """LD204: issue_id, agent_id, runtime_id, rerun_of_task_id or
    force_fresh_session changed after the task was dispatched."""

    sqlstate = "LD204"


class FindingAlreadyReported(DuplicateFindingKey):
    """LD301: a plain INSERT (or ``add_finding``) of a (scope, finding_key)
    already in the ledger. Report it again with
    :func:`findings_ledger.findings.report_finding`. A subclass of
    :class:`DuplicateFindingKey`, so existing ``except`` clauses still match."""

    sqlstate = "LD301"


class InvalidTransition(LedgerError):
    """LD302: a lifecycle transition the finding's state does not allow
    (dismissing a dismissed finding, restoring an active one)."""

    sqlstate = "LD302"


class DuplicateInReview(LedgerError):
    """LD303: the same finding_key twice in one ``replace_findings`` set."""

    sqlstate = "LD303"


class DeleteForbidden(LedgerError):
    """LD304: a DELETE of a finding; findings are dismissed, never deleted."""

    sqlstate = "LD304"


class LifecycleInconsistent(LedgerError):
    """LD305: a direct write leaving the lifecycle columns contradictory
    (dismissed but active, a resolution without dismissed_at, ...)."""

    sqlstate = "LD305"


class ScopeDenied(LedgerError):
    """LD401: per-scope row-level security is on and the scope is not one of
    the connection's scopes (the session setting ``ledger.scopes``)."""

    sqlstate = "LD401"


class AuditAppendOnly(LedgerError):
    """LD402: an UPDATE, DELETE or TRUNCATE of the audit (ledger.supersession)
    by a role other than the table owner."""

    sqlstate = "LD402"


class RoleRequired(LedgerError):
    """LD403: a SECURITY DEFINER function called by a role that does not
    hold the ledger role its EXECUTE is granted to (the SET ROLE role, else
    the session user; a superuser and the owner pass). The message names the
    function, the role needed and the caller. PostgreSQL refuses EXECUTE
    first (42501) while the grants are in place; LD403 is what still refuses
    the call when they were lost (a restore with ``--no-privileges``)."""

    sqlstate = "LD403"


class DowngradeRefused(LedgerError):
    """LD501: a downgrade below the baseline while the ledger holds rows
    (the message names how many of each table), or a revision's downgrade
    that drops a column or table holding data (the message names the
    revision and each column or table with its count). Back the database up, then
    pass ``allow_data_loss=True`` to :func:`findings_ledger.downgrade`
    (``alembic -x allow_data_loss=true``)."""

    sqlstate = "LD501"


class SchemaBehind(LedgerError):
    """LD502: the database's ledger schema is not at the revision expected:
    behind this findings-ledger's head (raised by the API when a ledger
    function, table or column it calls is missing, and by the command line's
    version check), or, from an offline script's version guard, not at the
    revision the script (or one of its revision blocks) starts from, or, from
    a revision's ``upgrade.sql`` run with ``psql -f``, not at the revision
    before it. The
    message names the revision the database is at; migrate with
    ``findings-ledger migrate`` / :func:`findings_ledger.migrate`."""

    sqlstate = "LD502"


class SchemaNewer(LedgerError):
    """LD503: the database's ledger schema is at a revision this
    findings-ledger does not know: a newer findings-ledger migrated it (a
    deployment rolled back to an older release). Raised before anything
    changes by every online migration (:func:`findings_ledger.migrate`,
    :func:`findings_ledger.downgrade`, ``findings-ledger migrate``,
    ``alembic upgrade``/``downgrade``). The message names the revision, this
    findings-ledger's head, and how to go back: downgrade the database with
    the newer findings-ledger first (docs/dba.md, "Rolling a deployment
    back")."""

    sqlstate = "LD503"


class MigrationLocked(RuntimeError):
    """Another migration of the same database held the migration lock (an
    advisory lock, see migrations/env.py) for longer than the migration lock
    timeout: this run changed nothing. Not a :class:`LedgerError` (no LD
    code: the server raised nothing); ``sqlstate`` is ``55P03``
    (lock_not_available), as for the lock wait that timed out."""

    sqlstate = "55P03"

    def __init__(self, message: str, sqlstate: str = "55P03") -> None:
        super().__init__(message)
        self.sqlstate = sqlstate


F = TypeVar("F", bound=Callable[..., Any])

#: SQLSTATEs of a ledger object the caller's schema lacks (an older revision).
_MISSING_OBJECT = {"42883", "42P01", "42703", "3F000"}


def migration_hint(exc: psycopg.Error) -> str | None:
    """What to do about a migration that failed with ``exc``, or None: an
    object that already exists (a schema installed by psql and not stamped),
    a role the migration role may not create."""
    state = exc.sqlstate or ""
    message = (exc.diag.message_primary or str(exc)) if exc.diag else str(exc)
    if state in ("42P07", "42710", "42723", "42P06", "42P16"):
        return ("the database holds ledger objects its ledger.alembic_version does not record (installed with psql "
                "-f, revision by revision?): record the revision it is at with `alembic stamp <revision>` "
                "(docs/dba.md, 'Installing with psql'), then migrate")
    if state == "42501" and "role" in message:
        return ("the migration role may not create roles: create the four roles first (ledger_writer, ledger_reader, "
                "ledger_agent, ledger_admin; docs/dba.md), or migrate as a role with CREATEROLE")
    return None


#: SQLSTATE (``LD...``) -> exception class, from the classes' ``sqlstate`` declarations.
SQLSTATE_ERRORS: Mapping[str, type[LedgerError]] = MappingProxyType(_BY_SQLSTATE)

#: Unique constraint -> exception class for ``23505 unique_violation``, from
#: the classes' ``constraint`` declarations.
CONSTRAINT_ERRORS: Mapping[str, type[LedgerError]] = MappingProxyType(_BY_CONSTRAINT)


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


def schema_behind(exc: psycopg.Error, conn: psycopg.Connection[Any] | None = None) -> LedgerError | TypeError | None:
    """What a missing ledger function, table, column or schema (``exc`` names ``ledger``)
    means, or None when ``exc`` is not one.

    With ``conn``, the database's revision is read on a connection of its own (``conn``'s
    transaction has failed): behind this findings-ledger's head, or no ledger schema,
    :class:`SchemaBehind`; at head, a missing function is an argument of a type the function
    does not take (``TypeError`` naming the function and the types it was called with) and
    anything else is None (the original error stands). When the revision cannot be read
    (no ``conn``, no second connection, a role that may not read ``ledger.alembic_version``,
    a revision this findings-ledger does not know), :class:`SchemaBehind` names both causes."""
    if exc.sqlstate not in _MISSING_OBJECT:
        return None
    message = (exc.diag.message_primary if exc.diag else None) or str(exc)
    if exc.sqlstate != "3F000" and "ledger." not in message and "ledger" not in (exc.diag.schema_name or ""):
        return None
    migrate = "migrate it with `findings-ledger migrate` or findings_ledger.migrate(dsn)"
    state = _revision_state(conn) if conn is not None else "unknown"
    if state == "behind":
        return SchemaBehind(f"the database's ledger schema is behind this findings-ledger ({message}): {migrate}",
                            sqlstate="LD502")
    if state == "head":
        if exc.sqlstate == "42883":
            return TypeError(f"{message}: the ledger schema is at this findings-ledger's head, so an argument has "
                             "a type the function does not take")
        return None
    return SchemaBehind(f"{message}: either the database's ledger schema is behind this findings-ledger "
                        f"({migrate}), or an argument has a type the function does not take", sqlstate="LD502")


def _revision_state(conn: psycopg.Connection[Any]) -> str:
    """``behind`` (or no ledger schema, or at a revision a release folded away), ``head``,
    or ``unknown``: where the database of ``conn`` is, read on a second connection with
    ``conn``'s parameters."""
    from .revisions import read_revision, replaced_revisions, shipped_revisions

    try:
        with psycopg.connect(conn.info.dsn, password=conn.info.password or None, autocommit=True,
                             connect_timeout=10) as side:
            version = read_revision(side)
    except psycopg.Error:
        return "unknown"
    revs, heads = shipped_revisions()
    if version is None or (version in revs and version not in heads) or version in replaced_revisions():
        return "behind"
    return "head" if version in heads else "unknown"


@contextmanager
def translate(conn: psycopg.Connection[Any] | None = None) -> Iterator[None]:
    """Re-raise ledger SQLSTATEs from psycopg as typed :class:`LedgerError`,
    and a missing ledger object as :func:`schema_behind` says (with ``conn``,
    the connection the statement ran on: :class:`SchemaBehind` only when the
    database's revision is behind head)."""
    try:
        yield
    except psycopg.Error as exc:
        err = error_for(exc) or schema_behind(exc, conn)
        if err is None:
            raise
        raise err from exc


def string_list(value: object, name: str, *, optional: bool = False) -> list[Any] | None:
    """``value`` (a list, tuple or other iterable) as a list for an array
    parameter (``text[]``, ``bigint[]``); None stays None when ``optional``.
    Raises ``TypeError`` naming ``name`` for a ``str`` or ``bytes`` (iterated,
    ``"Makefile"`` would be the paths ``['M', 'a', ...]``), a mapping or
    anything not iterable; the elements are the database's to check."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        hint = f" (one path: [{value!r}])" if isinstance(value, str) and len(value) <= 80 else ""
        raise TypeError(f"{name} must be a list, not {type(value).__name__} {shown}{hint}")
    return list(value)


#: The Python types of the scalar parameters :func:`checked_arguments` checks, with how a
#: message names them. A value of another type would reach the stored function as another
#: SQL type (an ``int`` lease as ``integer``, not ``interval``), a signature it does not have.
_SCALAR_NAMES: dict[type, str] = {int: "an int", float: "a float", bool: "a bool", str: "a str",
                                  timedelta: "a timedelta", datetime: "a datetime"}


def _scalar_check(annotation: Any) -> tuple[tuple[type, ...], bool] | None:
    """(accepted types, None allowed) of a parameter annotated with one of :data:`_SCALAR_NAMES`
    (or it ``| None``), else None (not checked)."""
    args = typing.get_args(annotation) if typing.get_origin(annotation) in (typing.Union, types.UnionType) else (
        annotation,)
    optional = type(None) in args
    kinds = tuple(a for a in args if a is not type(None))
    if len(kinds) != 1 or kinds[0] not in _SCALAR_NAMES:
        return None
    kind = kinds[0]
    return ((int, float) if kind is float else (kind,)), optional


def _type_error(name: str, value: Any, accepted: tuple[type, ...], optional: bool) -> TypeError:
    shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
    wanted = _SCALAR_NAMES[accepted[-1]] + (" or None" if optional else "")
    hint = ""
    if accepted[0] is timedelta and isinstance(value, (int, float)) and not isinstance(value, bool):
        hint = f" (seconds: timedelta(seconds={value!r}))"
    return TypeError(f"{name} must be {wanted}, not {type(value).__name__} {shown}{hint}")


def checked_arguments(func: F) -> F:
    """Decorate an API function so that a scalar argument of the wrong Python type (a parameter
    annotated ``int``, ``float``, ``bool``, ``str``, ``timedelta`` or ``datetime``, or one of
    them ``| None``) raises ``TypeError`` naming the parameter before any SQL: ``lease=60``
    (``lease must be a timedelta, not int 60``), ``max=2.5``, ``max=True``. None passes (the
    stored function refuses a NULL it needs, LD002). Other parameters (lists, mappings,
    connections) are the function's to check."""
    signature = inspect.signature(func)
    hints = typing.get_type_hints(func)
    checks: dict[str, tuple[tuple[type, ...], bool]] = {}
    for name in signature.parameters:
        check = _scalar_check(hints.get(name))
        if check is not None:
            checks[name] = check
    positions = {i: name for i, name in enumerate(signature.parameters) if name in checks}

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for i, value in enumerate(args):
            name = positions.get(i)
            if name is not None:
                _check(name, value, checks[name])
        for name, value in kwargs.items():
            check = checks.get(name)
            if check is not None:
                _check(name, value, check)
        return func(*args, **kwargs)

    return typing.cast(F, wrapper)


def _check(name: str, value: Any, check: tuple[tuple[type, ...], bool]) -> None:
    accepted, optional = check
    if value is None:
        return  # NULL: the stored function's to refuse (LD002) where a value is required
    if not isinstance(value, accepted) or (isinstance(value, bool) and bool not in accepted):
        raise _type_error(name, value, accepted, optional)
