"""Findings, merges, the audit and hygiene mode over the ledger's stored
functions, and :func:`migrate` / :func:`downgrade` (the alembic revisions
shipped with the package).

Conventions (the same for every call here and in :mod:`~findings_ledger.claims`,
:mod:`~findings_ledger.findings`, :mod:`~findings_ledger.decisions`,
:mod:`~findings_ledger.importers` and :mod:`~findings_ledger.access`):

* the first argument is the caller's psycopg 3 connection; nothing here
  commits or rolls back, so callers compose their own transactions (with
  ``autocommit=True`` each call is its own transaction);
* each call is one SQL statement calling one stored function (see
  :mod:`findings_ledger.queries`);
* results are frozen dataclasses (:mod:`findings_ledger.models`);
* ledger errors arrive as typed exceptions (:mod:`findings_ledger.errors`),
  with the psycopg error as ``__cause__``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from . import queries
from .errors import checked_arguments, error_for, string_list, translate
from .models import (
    ActiveFinding,
    AuditEntry,
    ClaimedRecheck,
    Decision,
    FileStateOutcome,
    Finding,
    MergeResult,
    PendingFileState,
    RecheckRequest,
)
from .revisions import migrations_dir, read_revision, shipped_revisions


def alembic_config(dsn: str | None = None) -> Any:
    """An alembic ``Config`` for the ledger's revisions targeting ``dsn``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if dsn is not None:
        cfg.attributes["dsn"] = dsn
    return cfg


@checked_arguments
def migrate(dsn: str, revision: str = "head") -> None:
    """Upgrade the database at ``dsn`` (libpq DSN or URI) to ``revision``.

    Runs the real alembic revisions (the same as ``alembic upgrade head``);
    upgrading a database already at head does nothing. A database at a
    revision a release folded away is first brought to that release's fold
    (:mod:`findings_ledger.folds`: the archived revisions, then a stamp once
    its catalog is the folded state, else :class:`~findings_ledger.folds.FoldRefused`). A ledger SQLSTATE a
    revision raises is its :class:`~findings_ledger.errors.LedgerError`; a
    malformed DSN or a failed connection is the :class:`psycopg.Error`
    :func:`psycopg.connect` raises.
    """
    from alembic import command

    from . import folds

    with _translate_migration():
        shipped = folds.folds()
        if shipped:
            with psycopg.connect(dsn) as conn:
                at = read_revision(conn)
            fold = folds.fold_of(at)
            if fold is not None and at is not None:
                folds.upgrade_replaced(dsn, at, fold)
        command.upgrade(alembic_config(dsn), revision)


def schema_behind(conn: psycopg.Connection[Any]) -> str | None:
    """Why the database of ``conn`` is not at this findings-ledger's head,
    or None when it is (or is at a revision this findings-ledger does not
    know, i.e. newer, or its version cannot be read by this role). The
    answer is one sentence: ``no ledger schema`` or ``at REV, behind HEAD``.
    Reads ``ledger.alembic_version`` (one or two queries)."""
    try:
        version = current_revision(conn)
    except psycopg.errors.InsufficientPrivilege:
        if not conn.autocommit:
            conn.rollback()
        return None
    revs, heads = shipped_revisions()
    if version is None:
        return "no ledger schema"
    if version in heads or version not in revs:
        return None
    return f"at {version}, behind this findings-ledger's {', '.join(sorted(heads))}"


@checked_arguments
def head_revision() -> str:
    """The newest revision of this findings-ledger (alembic's head)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError(f"{migrations_dir()} holds no revision")
    return head


@checked_arguments
def current_revision(conn: psycopg.Connection[Any]) -> str | None:
    """The revision the database of ``conn`` is at (``ledger.alembic_version``),
    or None when it has no ledger schema yet."""
    return read_revision(conn)


@checked_arguments
def downgrade(dsn: str, revision: str, *, allow_data_loss: bool = False) -> None:
    """Downgrade the database at ``dsn`` to ``revision`` (``"base"``: remove
    the ledger), as ``alembic downgrade`` does.

    Below the baseline every ledger table is dropped, so while the ledger
    holds rows that step raises :class:`~findings_ledger.errors.DowngradeRefused`
    (LD501, naming the row count of each table) and drops nothing, unless
    ``allow_data_loss=True`` (``alembic -x allow_data_loss=true``). A
    revision whose downgrade drops a column or table holding data (a non-NULL
    value, a value other than the column's default, a row of a dropped table)
    raises the same, naming the revision and each column or table with its
    count. The guards of every revision to undo run before the first is
    undone, so a refused downgrade leaves the database at its revision.
    """
    import argparse

    from alembic import command

    cfg = alembic_config(dsn)
    cfg.cmd_opts = argparse.Namespace(x=[f"allow_data_loss={'true' if allow_data_loss else 'false'}"])
    with _translate_migration():
        command.downgrade(cfg, revision)


@contextmanager
def _translate_migration() -> Iterator[None]:
    """Re-raise a ledger SQLSTATE that a revision raised as its typed
    :class:`~findings_ledger.errors.LedgerError`, and any other database or
    connection error (a malformed DSN, a refused connection) as the psycopg
    error :func:`psycopg.connect` would raise, not SQLAlchemy's wrapper.
    alembic runs the SQL through SQLAlchemy, whose ``DBAPIError`` keeps the
    psycopg error as ``.orig`` (read without importing SQLAlchemy here)."""
    try:
        yield
    except Exception as exc:
        orig = getattr(exc, "orig", None)
        if not isinstance(orig, psycopg.Error):
            raise
        err = error_for(orig)
        if err is not None:
            raise err from orig
        raise orig from None  # psycopg's own error, as psycopg.connect would raise it


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
def record_merge(
    conn: psycopg.Connection[Any],
    scope: str,
    commit_sha: str,
    paths: Sequence[str] = (),
    *,
    message: str = "",
    node_id: str | None = None,
    merged_at: datetime | None = None,
    branch: str | None = None,
    added: Sequence[str] | None = None,
    deleted: Sequence[str] | None = None,
    hunks: Mapping[str, Sequence[Sequence[int]]] | None = None,
    repo: str | os.PathLike[str] | None = None,
) -> MergeResult:
    """Record a merge that landed (``ledger.record_merge``) and return what it did.

    ``decisions`` explain every finding the merge's paths or message touched
    (superseded, would_supersede, ambiguous, candidate, mention, skipped;
    see :class:`~findings_ledger.models.Decision`). ``branch`` is the branch
    it landed on (None: unknown). ``added`` and ``deleted``: the paths it
    added and deleted (subsets of ``paths``; None: unknown); ``hunks``:
    ``{path: [[old_start, old_count, new_start, new_count], ...]}`` as
    ``git diff -U0`` prints them (None: no line information).
    ``merged_at`` (None: now) before a finding's ``observed_at`` never
    retires it. Redelivering the same ``(scope,
    commit_sha)`` has no second effect and returns ``recorded=False`` with
    the original decisions. Raises LD001-LD004 as typed errors, and
    ``MergeConflict`` (LD007) for a redelivery with other paths, message or
    branch. With ``repo`` (the git repository holding ``commit_sha``), the
    file-state requests the merge opened for checked findings (and any
    still pending for it) are answered from git in the same transaction
    (:func:`findings_ledger.filestates.answer_pending`; an answer the
    ledger refuses is rolled back alone and logged, the merge is kept and
    its requests stay pending), and ``decisions`` include what the answers
    decided (a finding whose check held: ``superseded``, rule ``check``),
    as a redelivery returns them.
    A ``repo`` that is not a git repository holding ``commit_sha`` raises
    ``ValueError`` before anything is written (its requests could never be
    answered from it).
    """
    params = {
        "scope": scope,
        "commit_sha": commit_sha,
        "paths": string_list(paths, "paths"),
        "message": message,
        "node_id": node_id,
        "merged_at": merged_at,
        "branch": branch,
        "added": string_list(added, "added", optional=True),
        "deleted": string_list(deleted, "deleted", optional=True),
        "hunks": None if hunks is None else Jsonb({p: [list(h) for h in hs] for p, hs in hunks.items()}),
    }
    if repo is not None:
        from .filestates import answer_pending, check_repository

        check_repository(Path(repo), commit_sha)  # before anything is written
        with conn.transaction():
            with translate(conn), conn.cursor() as cur:
                cur.execute(queries.RECORD_MERGE, params)
                row = cur.fetchone()
            assert row is not None
            if answer_pending(conn, scope, Path(repo), merge_ids=[row[0]]).answered:
                # what the answers decided is in the audit: read the merge's rows
                # again (a redelivery of the same merge returns all of them)
                with translate(), conn.cursor() as cur:
                    cur.execute(queries.RECORD_MERGE, params)
                    again = cur.fetchone()
                assert again is not None
                row = (row[0], row[1], again[2])
    else:
        with translate(conn), conn.cursor() as cur:
            cur.execute(queries.RECORD_MERGE, params)
            row = cur.fetchone()
    assert row is not None
    merge_id, recorded, decisions = row
    return MergeResult(
        merge_id=merge_id,
        recorded=recorded,
        decisions=[Decision(**d) for d in decisions],
    )


#: The fields of one merge for :func:`record_merges`, as :func:`record_merge` names them.
MERGE_FIELDS = ("commit_sha", "paths", "message", "node_id", "merged_at", "branch", "added", "deleted", "hunks")


def _merge_json(merge: Any) -> Any:
    """One merge as JSON for ``ledger.record_merges`` (tuples are arrays
    already): times as ISO 8601 (``isoformat``), sets as arrays, fields of
    value None left out; anything else as it is, for the database to accept
    or name."""
    if not isinstance(merge, Mapping):
        return merge
    return {k: v.isoformat() if hasattr(v, "isoformat") else sorted(v) if isinstance(v, (set, frozenset)) else v
            for k, v in merge.items() if v is not None}


@checked_arguments
def record_merges(conn: psycopg.Connection[Any], scope: str, merges: Sequence[Mapping[str, Any]]) -> list[MergeResult]:
    """Record a batch of merges of ``scope`` in one statement
    (``ledger.record_merges``: one multi-row INSERT, in order; at most
    10,000) and return one :class:`MergeResult` per merge, in order: what
    :func:`record_merge` called for each in turn returns.

    Each merge is a mapping with :data:`MERGE_FIELDS` (``commit_sha``
    required; ``merged_at`` a ``datetime`` with a time zone; ``hunks`` a
    mapping as for :func:`record_merge`); a field left out takes
    :func:`record_merge`'s default. The database checks every element
    (``ledger.record_merges``): a merge that is not an object, an unknown
    field, a value of the wrong type or a ``merged_at`` without its offset
    is ``ValueInvalid`` (LD003) naming ``merges[i].<field>``. Any error
    (LD001-LD004, ``MergeConflict`` LD007, LD401) leaves nothing of the
    batch written.
    """
    payload = [_merge_json(m) for m in string_list(merges, "merges") or []]
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.RECORD_MERGES, {"scope": scope, "merges": Jsonb(payload)})
        rows = cur.fetchall()
    assert len(rows) == len(payload)
    return [MergeResult(merge_id=merge_id, recorded=recorded, decisions=[Decision(**d) for d in decisions])
            for _, merge_id, recorded, decisions in rows]


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
def set_hygiene_mode(conn: psycopg.Connection[Any], scope: str, mode: str, *, create: bool = False) -> str:
    """Set ``scope``'s hygiene mode (``on``, ``dry`` or ``off``); returns the
    stored mode. An unknown scope raises ``NotFound`` (LD005) unless
    ``create=True``. Raises ``ValueInvalid`` (LD003)."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.SET_HYGIENE_MODE, {"scope": scope, "mode": mode, "create": create})
        row = cur.fetchone()
    assert row is not None
    return str(row[1])


@checked_arguments
def record_file_states(
    conn: psycopg.Connection[Any], merge_id: int, states: Mapping[str, str | None]
) -> list[FileStateOutcome]:
    """Answer the file-state requests merge ``merge_id`` opened
    (``ledger.record_file_states``): ``states`` maps each requested path to
    its text at the merge's commit, or None when it is absent (a directory
    key ``"pkg/"``: any string when at least one file is under it). The
    ledger evaluates each check and settles the findings in merge order: a
    finding retires (rule ``check``) at the first merge whose tree makes its
    check hold. Any order, more than once: the same answer again changes
    nothing. Returns one :class:`FileStateOutcome` per request of the merge.
    Raises ``NotFound`` (LD005: unknown merge), ``ScopeDenied`` (LD401),
    ``ValueInvalid`` (LD003: a path no request asked for, a value not a str
    or None), ``ValueTooLong`` (LD004: a text over 1 MiB),
    ``FileStateConflict`` (LD104); nothing is written on error."""
    with translate(conn), conn.cursor(row_factory=class_row(FileStateOutcome)) as cur:
        cur.execute(queries.RECORD_FILE_STATES, {"merge_id": merge_id, "states": Jsonb(dict(states))})
        return cur.fetchall()


@checked_arguments
def pending_file_states(conn: psycopg.Connection[Any], scope: str | None = None) -> list[PendingFileState]:
    """The file-state requests still waiting for an answer
    (``ledger.pending_file_states``), of ``scope`` or of every visible scope,
    in merge order: read each ``paths`` at ``commit_sha`` and answer with
    :func:`record_file_states`. Raises ``NotFound`` (LD005) for an unknown
    scope."""
    with translate(conn), conn.cursor(row_factory=class_row(PendingFileState)) as cur:
        cur.execute(queries.PENDING_FILE_STATES, {"scope": scope})
        return cur.fetchall()


@checked_arguments
def claim_rechecks(
    conn: psycopg.Connection[Any], scope: str, verifier: str, max: int = 10,  # noqa: A002
    *, lease: timedelta = timedelta(minutes=10),
) -> list[ClaimedRecheck]:
    """Claim up to ``max`` open recheck requests of ``scope`` for
    ``verifier`` (``ledger.claim_rechecks``: SKIP LOCKED, each request to one
    verifier per lease; an expired lease can be claimed again; a moot
    request never), each with the finding's text and the merge's commit and
    subject. Raises ``ValueRequired`` (LD002), ``ValueInvalid`` (LD003: max
    outside 1-1000, a lease not positive or over a day), ``NotFound``
    (LD005: unknown scope), ``ScopeDenied`` (LD401)."""
    with translate(conn), conn.cursor(row_factory=class_row(ClaimedRecheck)) as cur:
        cur.execute(queries.CLAIM_RECHECKS, {"scope": scope, "verifier": verifier, "max": max, "lease": lease})
        return cur.fetchall()


@checked_arguments
def answer_recheck(
    conn: psycopg.Connection[Any], request_id: int, resolved: bool, evidence: str, *, verifier: str
) -> RecheckRequest:
    """Answer a recheck request under ``verifier``'s lease
    (``ledger.answer_recheck``; ``verifier`` is the one the claim named:
    only the lease holder answers). The finding's answers settle in merge
    order: ``resolved=True`` retires the finding with rule ``recheck`` and
    the evidence (audited) at the first merge whose answer is resolved
    (``outcome`` None while an earlier request is unanswered; ``overruled``,
    the finding kept, for a merge before a person's later restore or
    dismissal); False keeps it (audited ``recheck_kept``). A request that
    became moot while claimed keeps the answer and changes nothing. The
    same answer again is a no-op. Raises ``LeaseInvalid`` (LD103: not
    claimed, lease expired, another verifier's), ``NotFound`` (LD005),
    ``ValueRequired`` (LD002), ``ValueTooLong`` (LD004), ``ScopeDenied``
    (LD401); nothing is written on error."""
    params = {"id": request_id, "resolved": resolved, "evidence": evidence, "verifier": verifier}
    with translate(conn), conn.cursor(row_factory=class_row(RecheckRequest)) as cur:
        cur.execute(queries.ANSWER_RECHECK, params)
        row = cur.fetchone()
    assert row is not None
    return row
