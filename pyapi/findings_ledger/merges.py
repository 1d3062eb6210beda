"""Merges: recording the merges that landed (:func:`record_merge`, a batch
with :func:`record_merges`) and applying those written while the triggers
did not fire (:func:`reconcile`).

A thin wrapper over ``sql/merges/`` (``ledger.record_merge``,
``ledger.record_merges``, ``ledger.reconcile``; what a merge decides for
each finding is the ``decisions`` topic's ``ledger._merge_decisions``, run
by the merge trigger ``_200_supersede``). Same conventions as
:mod:`findings_ledger.api`: the caller's connection, one statement per
call, nothing committed here, typed errors.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from . import queries
from .checks import answer_pending, check_repository
from .errors import checked_arguments, string_list, translate
from .models import Decision, MergeResult


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
    (:func:`findings_ledger.checks.answer_pending`; an answer the
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
def reconcile(conn: psycopg.Connection[Any], scope: str) -> list[MergeResult]:
    """Apply the merges of ``scope`` that never went through the ledger's
    triggers (``processed = false``: written with
    ``session_replication_role = replica``), in id order (``ledger.reconcile``).

    Returns one :class:`MergeResult` per merge applied (``recorded=True``,
    its decisions); an empty list when there was nothing to do, so calling it
    again is harmless. Needs ``ledger_admin`` or the owner. Raises
    ``ValueRequired``/``ValueInvalid``/``ValueTooLong`` (LD002-LD004) for a bad
    scope, ``NotFound`` (LD005) for an unknown one, ``ScopeDenied`` (LD401)
    under per-scope row-level security, ``PathRejected`` (LD001) naming the
    merge or finding whose stored path cannot be normalised.
    """
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.RECONCILE, {"scope": scope})
        rows = cur.fetchall()
    return [
        MergeResult(merge_id=merge_id, recorded=True, decisions=[Decision(**d) for d in decisions])
        for merge_id, decisions in rows
    ]
