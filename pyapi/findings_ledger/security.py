"""Security and reliability calls: reconciling merges written while
triggers did not fire, and per-scope row-level security.

Same conventions as :mod:`findings_ledger.api`: the caller's connection,
one statement per call, nothing committed here, typed errors. The rules
themselves live in PostgreSQL (``ledger.reconcile``,
``ledger._check_scope_access``, the ``scope_isolation`` policies); see
docs/security.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from . import queries
from .errors import string_list, translate
from .models import Decision, MergeResult


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
    with translate(), conn.cursor() as cur:
        cur.execute(queries.RECONCILE, {"scope": scope})
        rows = cur.fetchall()
    return [
        MergeResult(merge_id=merge_id, recorded=True, decisions=[Decision(**d) for d in decisions])
        for merge_id, decisions in rows
    ]


def set_scopes(conn: psycopg.Connection[Any], scopes: Sequence[str], *, local: bool = False) -> None:
    """Name the scopes this connection may see and write while per-scope
    row-level security is on: sets ``ledger.scopes`` to the comma-separated
    list (for the session, or with ``local=True`` for the current transaction
    only). An empty list means no scope at all.

    The setting is only as trustworthy as the code that sets it: set it in
    the service's connection layer, never from tenant input (docs/security.md).
    Raises ``ValueError`` for a scope containing a comma (it cannot be listed),
    ``TypeError`` for a ``str`` as ``scopes``.
    """
    scopes = string_list(scopes, "scopes") or []
    for scope in scopes:
        if "," in scope:
            raise ValueError(f"scope {scope!r} contains a comma and cannot be listed in ledger.scopes")
    with translate(), conn.cursor() as cur:
        cur.execute(queries.SET_SCOPES, {"scopes": ",".join(scopes), "is_local": local})


def enable_scope_rls(conn: psycopg.Connection[Any]) -> list[str]:
    """Turn per-scope row-level security on for the database
    (``ledger.enable_scope_rls``); returns the tables it now applies to.
    Owner only: raises ``psycopg.errors.InsufficientPrivilege`` otherwise."""
    with translate(), conn.cursor() as cur:
        cur.execute(queries.ENABLE_SCOPE_RLS)
        return [r[0] for r in cur.fetchall()]


def disable_scope_rls(conn: psycopg.Connection[Any]) -> list[str]:
    """Turn per-scope row-level security off again (``ledger.disable_scope_rls``);
    returns the tables. Owner only."""
    with translate(), conn.cursor() as cur:
        cur.execute(queries.DISABLE_SCOPE_RLS)
        return [r[0] for r in cur.fetchall()]
