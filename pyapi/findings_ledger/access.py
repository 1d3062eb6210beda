"""Access: the scopes a connection may see and write under per-scope
row-level security (:func:`set_scopes`), and turning that security on and
off (:func:`enable_scope_rls`, :func:`disable_scope_rls`).

Same conventions as :mod:`findings_ledger.api`: the caller's connection,
one statement per call, nothing committed here, typed errors. The rules
themselves live in PostgreSQL (``sql/access/``: ``ledger._check_scope_access``,
the ``scope_isolation`` policies, the roles and grants); see
docs/security.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import psycopg

from . import queries
from .errors import checked_arguments, string_list, translate


class SessionScopesWarning(UserWarning):
    """``set_scopes(..., session=True)``: the scopes outlive the transaction;
    behind a transaction-mode pooler (pgbouncer) the next client of the
    server connection gets them (another tenant's rows)."""


@checked_arguments
def set_scopes(
    conn: psycopg.Connection[Any], scopes: Sequence[str], *, session: bool = False, local: bool | None = None
) -> None:
    """Name the scopes this connection may see and write while per-scope
    row-level security is on: sets ``ledger.scopes`` to the comma-separated
    list for the current transaction (``set_config(..., true)``), so it ends
    with the transaction, also behind a transaction-mode pooler. An empty
    list means no scope at all.

    Call it inside the transaction of the calls it is for (``with
    conn.transaction():``, or a connection that is not in autocommit mode):
    on an ``autocommit=True`` connection outside a transaction the setting
    would end with this very call, so that raises ``ValueError``.
    ``session=True`` sets it for the session instead, with a
    :class:`SessionScopesWarning`: it outlives the transaction, and behind
    a transaction-mode pooler the next client of the server connection sees
    this tenant's rows; use it only on a direct connection. ``local`` is
    the former spelling (``local=False`` is ``session=True``).

    The setting is only as trustworthy as the code that sets it: set it in
    the service's connection layer, never from tenant input (docs/security.md).
    Raises ``ValueError`` for a scope containing a comma (it cannot be listed),
    ``TypeError`` for a ``str`` as ``scopes``.
    """
    if local is not None:
        session = not local
    scopes = string_list(scopes, "scopes") or []
    for scope in scopes:
        if "," in scope:
            raise ValueError(f"scope {scope!r} contains a comma and cannot be listed in ledger.scopes")
    if session:
        warnings.warn(
            "set_scopes(session=True): ledger.scopes outlives the transaction; behind a transaction-mode pooler "
            "the next client of this server connection gets these scopes (use it on a direct connection only)",
            SessionScopesWarning,
            stacklevel=2,
        )
    elif conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        raise ValueError(
            "set_scopes on an autocommit connection outside a transaction: the transaction-local setting would "
            "end with this call; call it inside `with conn.transaction():` (or pass session=True on a direct "
            "connection only)"
        )
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.SET_SCOPES, {"scopes": ",".join(scopes), "is_local": not session})


@checked_arguments
def enable_scope_rls(conn: psycopg.Connection[Any]) -> list[str]:
    """Turn per-scope row-level security on for the database
    (``ledger.enable_scope_rls``); returns the tables it now applies to.
    Owner only: raises ``psycopg.errors.InsufficientPrivilege`` otherwise."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.ENABLE_SCOPE_RLS)
        return [r[0] for r in cur.fetchall()]


@checked_arguments
def disable_scope_rls(conn: psycopg.Connection[Any]) -> list[str]:
    """Turn per-scope row-level security off again (``ledger.disable_scope_rls``);
    returns the tables. Owner only."""
    with translate(conn), conn.cursor() as cur:
        cur.execute(queries.DISABLE_SCOPE_RLS)
        return [r[0] for r in cur.fetchall()]
