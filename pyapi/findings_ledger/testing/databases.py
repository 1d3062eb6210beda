"""Fresh test databases on a PostgreSQL server, migrated or empty: what the
fixtures of :mod:`findings_ledger.testing.pytest_plugin` are made of.

Needs pytest-postgresql (its ``DatabaseJanitor`` creates and drops the
databases), so it is imported only when a ledger fixture is used; install it
with ``pip install 'findings-ledger[pytest]'``.

The server is ``--ledger-dsn`` / ``LEDGER_DSN`` when given, else the
throwaway cluster of :mod:`findings_ledger.testing.cluster`, started on
demand. Its role needs CREATEDB. Database names carry the process id, so
concurrent runs against one server do not collide.

pytest-xdist: every worker is a process of its own, so each builds its own
template (``ledger_tmpl_<pid>``) and its databases carry its pid. The one
thing they share is the throwaway cluster: the first worker to need it
starts it while the others wait on the lock file beside the cluster
directory (:func:`findings_ledger.testing.cluster.start_lock`), then find it
running.
Concurrent template migrations are safe: the four cluster-wide roles are
created "when absent" with a duplicate guard, and a concurrent ``COMMENT ON
ROLE`` waits for the other instead of failing. Every janitor drops its
database under :func:`~findings_ledger.testing.cluster.catalog_lock`
(shared), so a test that downgrades below the baseline (``DROP ROLE``)
under the exclusive lock never sees a database vanish mid-check.
"""

from __future__ import annotations

import atexit
import itertools
import os
import re
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from pytest_postgresql.janitor import DatabaseJanitor

from ..api import migrate
from . import cluster

_counter = itertools.count()

#: The databases a test run creates: ``ledger_tmpl_<pid>`` and ``ledger_test_<pid>_<n>``.
TEST_DATABASE = re.compile(r"^ledger_(?:tmpl_(?P<tmpl>\d+)|test_(?P<test>\d+)_\d+)$")
#: The owner recorded in each test database's COMMENT.
_OWNER = re.compile(r"^findings-ledger test database: host=(?P<host>\S+) pid=(?P<pid>\d+) start=(?P<start>\d*)$")


def _process_start(pid: int) -> str:
    """The start time of process ``pid`` (clock ticks after boot, field 22 of
    ``/proc/<pid>/stat``), '' when unknown: with the pid it names one process,
    so a reused pid is not taken for the run that created a database."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]


def _owner_comment() -> str:
    pid = os.getpid()
    return f"findings-ledger test database: host={socket.gethostname()} pid={pid} start={_process_start(pid)}"


def _run_is_gone(comment: str | None) -> bool:
    """Whether the test run named by a database's COMMENT has ended: a
    process of this host whose pid is not alive, or alive but started at
    another time (the pid was reused). A database without the comment, or
    of another host, is never taken for abandoned."""
    match = _OWNER.match(comment or "")
    if match is None or match["host"] != socket.gethostname():
        return False
    pid = int(match["pid"])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, another user's
    return bool(match["start"]) and _process_start(pid) not in ("", match["start"])


_maintenance: dict[str, psycopg.Connection[Any]] = {}


def _maintenance_connection(server: dict[str, Any]) -> psycopg.Connection[Any]:
    """One autocommit connection per server to its maintenance database,
    kept for the process (closed at exit)."""
    key = make_conninfo(**{k: v for k, v in server.items() if v is not None})
    conn = _maintenance.get(key)
    if conn is None or conn.closed:
        conn = _maintenance[key] = psycopg.connect(key, autocommit=True)
        atexit.register(conn.close)
    return conn


def mark_owner(server: dict[str, Any], dbname: str) -> None:
    """Record this host and process in ``COMMENT ON DATABASE dbname``, for
    :func:`drop_abandoned_databases` of a later run."""
    from psycopg import sql

    _maintenance_connection(server).execute(
        sql.SQL("COMMENT ON DATABASE {} IS {}").format(sql.Identifier(dbname), sql.Literal(_owner_comment())))


def abandoned_databases(server: dict[str, Any]) -> list[str]:
    """The test databases on ``server`` (:data:`TEST_DATABASE`) whose run has
    ended (:func:`_run_is_gone`: killed before it could drop them)."""
    rows = _maintenance_connection(server).execute(
        "SELECT datname, pg_catalog.shobj_description(oid, 'pg_database') FROM pg_catalog.pg_database"
        " WHERE datname ~ '^ledger_(tmpl|test)_[0-9]'").fetchall()
    return sorted(name for name, comment in rows if TEST_DATABASE.match(name) and _run_is_gone(comment))


def drop_abandoned_databases(server: dict[str, Any]) -> list[str]:
    """Drop the databases of test runs that were killed (SIGKILL, a lost CI
    runner) on this host: :func:`abandoned_databases`, templates included
    (``IS_TEMPLATE false`` first). Returns their names. A database another
    process drops meanwhile is skipped."""
    from psycopg import sql

    conn = _maintenance_connection(server)
    dropped = []
    for name in abandoned_databases(server):
        ident = sql.Identifier(name)
        try:
            with cluster.catalog_lock({"host": server.get("host"), "port": server.get("port")}):
                conn.execute(sql.SQL("ALTER DATABASE {} IS_TEMPLATE false").format(ident))
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(ident))
        except psycopg.errors.InvalidCatalogName:
            continue
        dropped.append(name)
    return dropped


def server_params(dsn: str | None = None) -> dict[str, Any]:
    """Connection parameters (host, port, user, password, dbname) of the
    maintenance database on the server: ``dsn``, else ``LEDGER_DSN``, else
    the throwaway cluster (started if needed)."""
    dsn = dsn or os.environ.get(cluster.DSN_ENV)
    if not dsn:
        with cluster_lock():
            dsn = cluster.ensure_cluster().dsn("postgres")
    params = conninfo_to_dict(dsn)
    params.setdefault("dbname", "postgres")
    return params


def cluster_lock(timeout: float = 600) -> AbstractContextManager[None]:
    """The lock that serialises starting the throwaway cluster among the
    processes of a test run (pytest-xdist workers) and concurrent runs
    (:func:`findings_ledger.testing.cluster.start_lock`, which
    :func:`~findings_ledger.testing.cluster.ensure_cluster` takes too): a
    context manager."""
    return cluster.start_lock(cluster.default_cluster(), timeout=timeout)


#: ``server_version_num`` from which ``CREATE DATABASE`` takes ``STRATEGY``
FILE_COPY_SINCE = 150000


class _Janitor(DatabaseJanitor):  # type: ignore[misc]
    """pytest-postgresql's janitor, cloning a template with ``STRATEGY = FILE_COPY``
    where the server has it (PostgreSQL 15+; 13 and 14 copy files anyway) and
    dropping under the shared catalog lock.

    A test database is a clone of a template of a few MB: FILE_COPY copies its
    files and checkpoints, where 15's default WAL_LOG writes every block to the
    WAL, which costs more for a database this small."""

    def init(self) -> None:
        with self.cursor() as cur:
            query = self._build_create_database_sql()
            if self.template_dbname:
                # no one may be connected to the template while it is copied
                self._terminate_connection(cur, self.template_dbname)
                if cur.connection.info.server_version >= FILE_COPY_SINCE:
                    query += sql.SQL(" STRATEGY = FILE_COPY")
            cur.execute(query)

    def drop(self) -> None:
        with cluster.catalog_lock({"host": self.host, "port": self.port}):
            super().drop()


def janitor(server: dict[str, Any], dbname: str, template: str | None = None, as_template: bool = False) -> Any:
    """A ``DatabaseJanitor`` for database ``dbname`` on ``server`` (a clone of
    ``template`` when given); a context manager that creates and drops it."""
    # Parameters the DSN leaves out stay None, so libpq fills them in (PGHOST,
    # PGPORT, PGUSER, the Unix socket) exactly as for the test connections.
    libpq: dict[str, Any] = {key: server.get(key) for key in ("user", "host", "port", "password")}
    return _Janitor(
        **libpq,
        dbname=dbname,
        template_dbname=template,
        maintenance_dbname=server["dbname"],
        as_template=as_template,
    )


def database_dsn(server: dict[str, Any], dbname: str) -> str:
    """DSN of database ``dbname`` on ``server``."""
    return make_conninfo(**{**server, "dbname": dbname})


def unique_name(prefix: str) -> str:
    """``<prefix>_<pid>_<n>``: a database name no other test process uses."""
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


def template_database(server: dict[str, Any]) -> Iterator[str]:
    """Create a template database, migrate it to head with the real alembic
    revisions, yield its name, drop it afterwards."""
    name = f"ledger_tmpl_{os.getpid()}"
    drop_abandoned_databases(server)
    j = janitor(server, name, as_template=True)
    j.drop()
    j.init()
    mark_owner(server, name)
    try:
        migrate(database_dsn(server, name))
        yield name
    finally:
        j.drop()


def fresh_database(server: dict[str, Any], template: str | None) -> Iterator[str]:
    """Yield the DSN of a new database (a clone of ``template``, or empty
    when it is None), dropped afterwards."""
    name = unique_name("ledger_test")
    with janitor(server, name, template=template):
        mark_owner(server, name)
        yield database_dsn(server, name)


def autocommit_connection(dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """Yield an ``autocommit=True`` psycopg connection to ``dsn``, closed afterwards."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


def database_factory(server: dict[str, Any], template: Callable[[], str]) -> Iterator[Callable[..., str]]:
    """Yield a function ``make(migrated=True) -> dsn`` creating one more
    database per call (a clone of ``template()``, or empty); every database
    it made is dropped afterwards. ``template`` is called only when a
    migrated database is asked for."""
    janitors: list[Any] = []

    def make(migrated: bool = True) -> str:
        name = unique_name("ledger_test")
        j = janitor(server, name, template=template() if migrated else None)
        j.init()
        janitors.append(j)
        mark_owner(server, name)
        return database_dsn(server, name)

    try:
        yield make
    finally:
        for j in reversed(janitors):
            j.drop()
