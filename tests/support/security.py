"""Helpers shared by the security and reliability tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

#: The NOLOGIN group roles of sql/access/roles.sql.
ROLES = ("ledger_writer", "ledger_reader", "ledger_agent", "ledger_admin")

#: Every ledger table whose row count must not change when input is rejected.
TABLES = ("scope", "finding", "merge", "supersession", "issue", "agent_task", "injection")


#: Every privilege PUBLIC and the roles given as %(roles)s hold on schema ledger and its tables,
#: columns and functions: (grantee, privilege, object), the object "schema ledger", a relation,
#: relation(column) or a function signature (a NULL ACL read as the owner's default).
PRIVILEGES_QUERY = """
WITH grantee AS (
    SELECT oid, rolname::text AS name FROM pg_roles WHERE rolname = ANY (%(roles)s)
    UNION ALL SELECT 0, 'PUBLIC'
)
SELECT g.name, a.privilege_type, 'schema ledger'
  FROM pg_namespace n, aclexplode(n.nspacl) a JOIN grantee g ON g.oid = a.grantee
 WHERE n.nspname = 'ledger'
UNION ALL
SELECT g.name, a.privilege_type, c.oid::regclass::text
  FROM pg_class c, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a JOIN grantee g ON g.oid = a.grantee
 WHERE c.relnamespace = 'ledger'::regnamespace
UNION ALL
SELECT g.name, a.privilege_type, c.oid::regclass::text || '(' || att.attname || ')'
  FROM pg_class c JOIN pg_attribute att ON att.attrelid = c.oid, aclexplode(att.attacl) a
  JOIN grantee g ON g.oid = a.grantee
 WHERE c.relnamespace = 'ledger'::regnamespace
UNION ALL
SELECT g.name, a.privilege_type, p.oid::regprocedure::text
  FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a JOIN grantee g ON g.oid = a.grantee
 WHERE p.pronamespace = 'ledger'::regnamespace
"""


def actual_privileges(conn: psycopg.Connection[Any], roles: tuple[str, ...] = ROLES) -> set[tuple[str, str, str]]:
    """What PUBLIC and ``roles`` (the four ledger roles) hold in schema ledger (:data:`PRIVILEGES_QUERY`)."""
    return {tuple(r) for r in conn.execute(PRIVILEGES_QUERY, {"roles": list(roles)}).fetchall()}  # type: ignore[misc]


def counts(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Row count of every ledger table (read as the connection's current role)."""
    out = {}
    for table in TABLES:
        row = conn.execute(sql.SQL("SELECT count(*) FROM ledger.{}").format(sql.Identifier(table))).fetchone()
        assert row is not None
        out[table] = row[0]
    return out


def set_role(conn: psycopg.Connection[Any], role: str | None, scopes: str | None = None) -> None:
    """SET ROLE (None: RESET ROLE) and, when given, the ledger.scopes setting."""
    if role is None:
        conn.execute("RESET ROLE")
    else:
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    if scopes is not None:
        conn.execute("SELECT set_config('ledger.scopes', %s, false)", (scopes,))


@contextmanager
def as_role(conn: psycopg.Connection[Any], role: str, scopes: str | None = None) -> Iterator[psycopg.Connection[Any]]:
    """Run the block as ``role`` (SET ROLE on the superuser test connection),
    then go back to the owner and reset ledger.scopes and search_path."""
    set_role(conn, role, scopes)
    try:
        yield conn
    finally:
        if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
            conn.rollback()
        conn.execute("RESET ROLE")
        conn.execute("RESET ledger.scopes")
        conn.execute("RESET search_path")


def connect_as(dsn: str, role: str | None = None, scopes: str | None = None, **kwargs: Any) -> psycopg.Connection[Any]:
    """A new autocommit connection running as ``role`` (via SET ROLE)."""
    conn = psycopg.connect(dsn, autocommit=True, **kwargs)
    if role is not None or scopes is not None:
        set_role(conn, role, scopes)
    return conn


def ensure_login_role(conn: psycopg.Connection[Any], name: str, *member_of: str) -> None:
    """Create a NOLOGIN test role ``name`` (cluster-wide) unless it exists and
    make it a member of ``member_of``. Safe when several test databases do it."""
    conn.execute(
        sql.SQL(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = {name}) THEN "
            "CREATE ROLE {ident} NOLOGIN; END IF; "
            "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
        ).format(name=sql.Literal(name), ident=sql.Identifier(name))
    )
    for role in member_of:
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(role), sql.Identifier(name)))


def wait_until_blocked(observer: psycopg.Connection[Any], pid: int, polls: int = 6000) -> None:
    """Poll pg_stat_activity until backend ``pid`` waits for a heavyweight lock.

    Steps isolation-style tests; it asserts nothing about time (each poll
    sleeps 10 ms server-side only to avoid spinning) and fails after
    ``polls`` polls when the backend never blocks."""
    for _ in range(polls):
        row = observer.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
        if row is not None and row[0] == "Lock":
            return
        observer.execute("SELECT pg_sleep(0.01)")
    raise AssertionError(f"backend {pid} never waited for a lock")
