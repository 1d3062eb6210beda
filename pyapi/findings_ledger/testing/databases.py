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
On the throwaway cluster (not on a server given by DSN), the test databases
live in the tablespace ``ledger_test_tmpfs`` on ``/dev/shm`` when that is a
tmpfs with 2 GiB free (:func:`test_tablespace`): the tests create and drop
thousands of relation files (clones, resets, migrations), which a tmpfs does
without the file system's inode search.
Concurrent template migrations are safe: the four cluster-wide roles are
created "when absent" with a duplicate guard, and a concurrent ``COMMENT ON
ROLE`` waits for the other instead of failing. Every janitor drops its
database under :func:`~findings_ledger.testing.cluster.catalog_lock`
(shared), so a test that downgrades below the baseline (``DROP ROLE``)
under the exclusive lock never sees a database vanish mid-check.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import itertools
import os
import re
import shutil
import socket
import time
import warnings
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


#: ``pg_database.datconnlimit`` of a database a DROP DATABASE left invalid (killed once it had
#: begun; PostgreSQL 15.4+, 14.9+, 13.12+ and 16+; older minors have no such state)
INVALID_CONNLIMIT = -2

_STATE = ("SELECT datistemplate, datconnlimit = " + str(INVALID_CONNLIMIT)
          + " FROM pg_catalog.pg_database WHERE datname = %s")


def _drop_invalid(cur: Any, name: str, template: bool) -> None:
    """Drop database ``name``, which a killed DROP DATABASE left invalid: nothing but DROP is
    allowed on it (``ALTER DATABASE`` of it ends the session, FATAL), so it is dropped
    directly. An invalid template (DROP refuses a template, ALTER refuses an invalid database)
    is first unmarked in ``pg_database`` itself, which takes a superuser; another role gets
    ``InsufficientPrivilege``."""
    if template:
        cur.execute("UPDATE pg_catalog.pg_database SET datistemplate = false WHERE datname = %s AND datconnlimit = "
                    + str(INVALID_CONNLIMIT), (name,))
    cur.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))


def _drop_any(conn: psycopg.Connection[Any], name: str) -> bool:
    """Drop database ``name`` whatever state a killed run left it in: an invalid one directly
    (:func:`_drop_invalid`), a template unmarked first, connections ended (``FORCE``).
    False when it was already gone."""
    state = conn.execute(_STATE, (name,)).fetchone()
    if state is None:
        return False
    template, invalid = state
    with conn.cursor() as cur:
        if invalid:
            _drop_invalid(cur, name, template)
        else:
            if template:
                cur.execute(sql.SQL("ALTER DATABASE {} IS_TEMPLATE false").format(sql.Identifier(name)))
            cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return True


def drop_abandoned_databases(server: dict[str, Any]) -> list[str]:
    """Drop the databases of test runs that were killed (SIGKILL, a lost CI
    runner) on this host: :func:`abandoned_databases`, in whatever step of
    its life the kill left each (:func:`_drop_any`: an invalid database
    dropped directly, a template unmarked first). Returns their names.

    It never fails the run that calls it: a database another process drops
    meanwhile is skipped; one that cannot be dropped (an error, a session
    ended by the server: the connection is opened again) is tried once more,
    then left with a warning naming it and the error."""
    dropped = []
    for name in abandoned_databases(server):
        for attempt in (1, 2):
            try:
                with cluster.catalog_lock({"host": server.get("host"), "port": server.get("port")}):
                    if _drop_any(_maintenance_connection(server), name):
                        dropped.append(name)
                break
            except psycopg.errors.InvalidCatalogName:
                break  # dropped meanwhile by another process
            except psycopg.Error as exc:
                if attempt == 2:
                    warnings.warn(f"findings-ledger: the abandoned test database {name!r} could not be dropped: "
                                  f"{str(exc).strip()} (drop it by hand: DROP DATABASE {name})", stacklevel=2)
    return dropped


def server_params(dsn: str | None = None) -> dict[str, Any]:
    """Connection parameters (host, port, user, password, dbname) of the
    maintenance database on the server: ``dsn``, else ``LEDGER_DSN``, else
    the throwaway cluster (started if needed)."""
    dsn = dsn or os.environ.get(cluster.DSN_ENV)
    if not dsn:
        with cluster_lock():
            throwaway = cluster.ensure_cluster()
        _THROWAWAY_HOSTS.add(str(throwaway.base))
        dsn = throwaway.dsn("postgres")
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


#: The client connections to database ``{db}`` other than this one: what is terminated before a
#: database is cloned, dropped or reset. Not the server's own processes there: an autovacuum
#: worker analysing a freshly migrated template advertises no role, so a role that is not a
#: superuser may not signal it ("must be a superuser to terminate superuser process"), and
#: ``CREATE DATABASE``, ``DROP DATABASE`` and ``TRUNCATE`` stop autovacuum workers themselves.
_CLIENTS = ("FROM pg_catalog.pg_stat_activity WHERE datname = {db} AND pid <> pg_catalog.pg_backend_pid()"
            " AND backend_type = 'client backend'")


#: the tablespace of the throwaway cluster's test databases, and where it goes (see :func:`test_tablespace`)
TABLESPACE = "ledger_test_tmpfs"
TMPFS = Path("/dev/shm")
#: the space a tmpfs must have free to take the test databases
TMPFS_FREE = 2 << 30


def _is_tmpfs(path: Path) -> bool:
    """Whether ``path`` is the mount point of a tmpfs (/proc/mounts)."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(len(f := line.split()) > 2 and f[1] == str(path) and f[2] == "tmpfs" for line in mounts)


#: the directories (Unix-socket hosts) of the throwaway clusters :func:`server_params` chose in this process
_THROWAWAY_HOSTS: set[str] = set()


@functools.cache
def test_tablespace(host: str | None, port: int | str | None, user: str | None) -> str | None:
    """The tablespace the test databases of the server at ``host``/``port``
    are created in as ``user``: :data:`TABLESPACE` at
    ``/dev/shm/findings-ledger-ts.<port>.<hash of the cluster directory>``
    (:func:`ensure_tablespace`) when the server is the throwaway cluster
    :func:`server_params` chose in this process (no DSN given) and
    ``/dev/shm`` is a tmpfs with :data:`TMPFS_FREE` bytes free. None
    otherwise, and after any error (a warning names it): the server's
    default tablespace. Once per process, server and role."""
    if not host or host not in _THROWAWAY_HOSTS:
        return None
    try:
        if not (Path(host) / "data" / "PG_VERSION").is_file():
            return None
        if not _is_tmpfs(TMPFS) or shutil.disk_usage(TMPFS).free < TMPFS_FREE:
            return None
        server = {"host": host, "port": port, "user": user, "dbname": "postgres"}
        key = hashlib.sha256(host.encode()).hexdigest()[:12]
        return ensure_tablespace(server, TABLESPACE, TMPFS / f"findings-ledger-ts.{port}.{key}")
    except (OSError, psycopg.Error) as exc:
        warnings.warn(f"findings-ledger: the test databases stay in the default tablespace: {exc}", stacklevel=2)
        return None


def ensure_tablespace(server: dict[str, Any], name: str, location: Path) -> str | None:
    """Tablespace ``name`` on the throwaway cluster ``server`` (its ``host``
    the cluster directory), under the exclusive catalog lock (one process
    makes it, the others find it). Absent: made at ``location`` (a leftover
    directory of a former cluster there removed first), the directory owned
    by the server's OS user (the owner of the data directory), mode 0700,
    CREATE granted to PUBLIC, so every role the tests create databases as
    may use it. Present: its directory, wherever it was made, and the
    server's version directory inside it are made again when they vanished
    (a reboot empties /dev/shm). A role that is not a superuser uses it when
    it exists, it may, and its directory is there (else None). Returns
    ``name``."""
    owner = (Path(str(server["host"])) / "data").stat()
    with cluster.catalog_lock(server, exclusive=True):
        conn = _maintenance_connection(server)
        row = conn.execute("SELECT pg_catalog.pg_tablespace_location(oid), "
                           "pg_catalog.has_tablespace_privilege(oid, 'CREATE') FROM pg_catalog.pg_tablespace "
                           "WHERE spcname = %s", (name,)).fetchone()
        superuser = conn.execute("SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user").fetchone()
        if not (superuser and superuser[0]):
            return name if row is not None and row[1] and Path(row[0]).is_dir() else None
        made = []
        if row is None:
            if location.exists():
                shutil.rmtree(location)
            location.mkdir(mode=0o700)
            made.append(location)
        else:
            where = Path(row[0])
            version = conn.execute("SELECT 'PG_' || current_setting('server_version_num')::int / 10000 || '_' "
                                   "|| catalog_version_no FROM pg_catalog.pg_control_system()").fetchone()
            for path in (where, where / str(version[0] if version else "")):
                if not path.is_dir():
                    path.mkdir(mode=0o700)
                    made.append(path)
        if os.geteuid() == 0:
            for path in made:
                os.chown(path, owner.st_uid, owner.st_gid)
        if row is None:
            conn.execute(sql.SQL("CREATE TABLESPACE {} LOCATION {}").format(
                sql.Identifier(name), sql.Literal(str(location))))
            conn.execute(sql.SQL("GRANT CREATE ON TABLESPACE {} TO PUBLIC").format(sql.Identifier(name)))
    return name


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
            tablespace = test_tablespace(self.host, self.port, self.user)
            if tablespace is not None:
                query += sql.SQL(" TABLESPACE {}").format(sql.Identifier(tablespace))
            cur.execute(query)

    def drop(self) -> None:
        """Drop the database under the shared catalog lock; one a killed DROP DATABASE left
        invalid directly (:func:`_drop_invalid`: pytest-postgresql's drop refuses connections
        to it first, an ``ALTER DATABASE`` that ends the session on an invalid database)."""
        with cluster.catalog_lock({"host": self.host, "port": self.port}):
            with self.cursor() as cur:
                state = cur.execute(_STATE, (self.dbname,)).fetchone()
                if state is not None and state[1]:
                    _drop_invalid(cur, self.dbname, state[0])
                    return
            super().drop()

    @staticmethod
    def _terminate_connection(cur: Any, dbname: str) -> None:
        """Terminate the client connections to ``dbname`` before it is cloned or dropped
        (:data:`_CLIENTS`)."""
        cur.execute("SELECT count(pg_catalog.pg_terminate_backend(pid)) " + _CLIENTS.format(db="%s"), (dbname,))


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


#: Catalogs that VACUUM and ANALYZE write (autovacuum included): they say nothing about the
#: schema; :class:`Recycler` removes the statistics instead of comparing them.
_STATISTICS_CATALOGS = ("pg_statistic", "pg_statistic_ext_data")

#: A table's state as the planner sees it: ``(relpages, reltuples, relallvisible)``.
_PlannerState = tuple[int, float, int]


def _one(conn: psycopg.Connection[Any], query: Any) -> tuple[Any, ...]:
    """The one row ``query`` returns."""
    row = conn.execute(query).fetchone()
    assert row is not None
    return tuple(row)


class Recycler:
    """One migrated database per process, handed to one test after another
    and put back into the template's state after each: what ``ledger_dsn``
    and ``ledger_conn`` are made of. Cloning a template costs 50-300 ms on a
    small machine (files copied, WAL written); putting the rows back costs a
    few milliseconds.

    After a test (:meth:`release`), every other connection to the database
    is terminated. When the test left the schema as the template has it,
    the database is reset, in one transaction with
    ``session_replication_role = replica`` (no trigger fires, no foreign key
    is checked):

    * a table the test grew (its heap at :attr:`truncate_pages` pages or
      more, an index :attr:`truncate_pages` pages above the template's) or
      that VACUUM or ANALYZE saw (its ``relpages``, ``reltuples`` or
      ``relallvisible`` not the template's) is truncated, so its files and
      the planner's view of it are a new table's; every other table's rows
      are deleted;
    * the template's rows are copied back, every sequence is set to the
      template's value, the tables' planner statistics (``pg_statistic``)
      are removed and the database's statistics counters reset.

    A heap of fewer than 10 pages that was never analysed is planned as 10
    pages, so a plan in the next test is the plan a fresh clone gets.

    The database is dropped instead, and the next test gets a new clone,
    when the test changed anything else: a catalog row (``CREATE``,
    ``ALTER``, ``DROP``, ``GRANT``, ``COMMENT``, an extension, a temporary
    table: any catalog of ``pg_catalog`` but the statistics whose row count
    differs from the template's or that holds a row written since the last
    reset), a database setting (``pg_db_role_setting``), the database's own
    row, or a prepared transaction; or when a step of the reset fails. With
    a server role that is not a superuser (it may not set
    ``session_replication_role``) every test gets a new clone.

    What a test can tell from a fresh clone: the object identifiers (the
    previous test's, which were the template's) and the deleted rows' space
    in the tables below :attr:`truncate_pages`.
    """

    #: the heap size (pages of 8 kB) from which a reset truncates a table rather than deleting its rows
    truncate_pages = 10

    def __init__(self, server: dict[str, Any], template: str) -> None:
        self.server = server
        self.template = template
        self.name: str | None = None
        self._janitor: Any = None
        self._conn: psycopg.Connection[Any] | None = None
        self._reusable: bool | None = None
        self._tables: list[tuple[str, bytes]] = []  # (table, its template rows as COPY text)
        self._sequences: list[tuple[str, int, bool]] = []
        self._planner: dict[str, _PlannerState] = {}
        self._index_pages: dict[str, int] = {}
        self._catalog_counts: dict[str, int] = {}
        self._catalogs: list[str] = []
        self._watermark = 0
        #: how many databases were cloned and how many resets served a test
        self.clones = 0
        self.resets = 0

    # -- the database --------------------------------------------------------------------------

    def lease(self) -> Iterator[str]:
        """Yield the DSN of a database in the template's state for one test, then
        :meth:`release` it."""
        if self.name is None:
            self._clone()
        assert self.name is not None
        try:
            yield database_dsn(self.server, self.name)
        finally:
            self.release()

    def release(self) -> None:
        """Put the database back into the template's state, or drop it (see the class)."""
        if self.name is None:
            return
        try:
            if self._reusable and self._reset():
                self.resets += 1
                return
        except psycopg.Error:
            pass
        self._drop()

    def close(self) -> None:
        """Drop the database (at the end of the session)."""
        self._drop()

    def _clone(self) -> None:
        name = unique_name("ledger_test")
        j = janitor(self.server, name, template=self.template)
        j.init()
        self.name, self._janitor = name, j
        self.clones += 1
        mark_owner(self.server, name)
        try:
            self._conn = psycopg.connect(database_dsn(self.server, name), autocommit=True)
            if self._reusable is None:
                self._reusable = bool(_one(self._conn, "SELECT rolsuper FROM pg_catalog.pg_roles"
                                                       " WHERE rolname = current_user")[0])
            if self._reusable and not self._catalog_counts:
                self._record_template_state(self._conn)
            self._watermark = self._next_xid(self._conn)
        except psycopg.Error:
            self._reusable = False

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._janitor is not None:
            j, self._janitor, self.name = self._janitor, None, None
            j.drop()

    # -- the template's state ------------------------------------------------------------------

    _USER_RELATIONS = (" FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                       " WHERE n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'")

    def _record_template_state(self, conn: psycopg.Connection[Any]) -> None:
        self._tables = []
        for (table,) in conn.execute(
                "SELECT c.oid::regclass::text" + self._USER_RELATIONS + " AND c.relkind = 'r' ORDER BY 1").fetchall():
            rows = b""
            with conn.cursor().copy(sql.SQL("COPY {} TO STDOUT").format(sql.SQL(table))) as copy:
                for block in copy:
                    rows += bytes(block)
            self._tables.append((table, rows))
        self._sequences = []
        for (seq,) in conn.execute(
                "SELECT c.oid::regclass::text" + self._USER_RELATIONS + " AND c.relkind = 'S' ORDER BY 1").fetchall():
            last, called = _one(conn, sql.SQL("SELECT last_value, is_called FROM {}").format(sql.SQL(seq)))
            self._sequences.append((seq, last, called))
        self._planner, _, self._index_pages = self._sizes(conn)
        self._catalog_counts = {name: count for name, (count, _) in self._catalog_rows(conn, 0).items()}

    def _sizes(self, conn: psycopg.Connection[Any]) -> tuple[dict[str, _PlannerState], dict[str, int], dict[str, int]]:
        """Per user table: its planner state and its heap's pages; per table, the largest
        number of pages among its indexes."""
        planner: dict[str, _PlannerState] = {}
        heap: dict[str, int] = {}
        indexes: dict[str, int] = {}
        for table, relpages, reltuples, allvisible, pages, index_pages in conn.execute(
                "SELECT c.oid::regclass::text, c.relpages, c.reltuples, c.relallvisible,"
                " pg_catalog.pg_relation_size(c.oid) / 8192,"
                " (SELECT coalesce(max(pg_catalog.pg_relation_size(i.indexrelid) / 8192), 0)"
                "    FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid)"
                + self._USER_RELATIONS + " AND c.relkind = 'r'").fetchall():
            planner[table] = (relpages, float(reltuples), allvisible)
            heap[table] = pages
            indexes[table] = index_pages
        return planner, heap, indexes

    @staticmethod
    def _next_xid(conn: psycopg.Connection[Any]) -> int:
        """The 32-bit id the next transaction gets at the earliest: every catalog row written
        after this call has a larger ``xmin``."""
        return int(_one(conn, "SELECT pg_catalog.txid_current() % 4294967296")[0]) + 1

    def _catalog_rows(self, conn: psycopg.Connection[Any], watermark: int) -> dict[str, tuple[int, int]]:
        """Per catalog of ``pg_catalog`` but the statistics: its row count, and how many of
        its rows were written by a transaction from ``watermark`` on. (The list of catalogs is
        the server's, read once.)"""
        if not self._catalogs:
            self._catalogs = [r[0] for r in conn.execute(
                "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relnamespace = 'pg_catalog'::regnamespace"
                " AND c.relkind = 'r' AND NOT c.relisshared AND c.relname <> ALL (%s) ORDER BY 1",
                (list(_STATISTICS_CATALOGS),))]
        parts = [sql.SQL("SELECT {}, count(*), count(*) FILTER (WHERE xmin::text::bigint >= {}) FROM pg_catalog.{}")
                 .format(sql.Literal(c), sql.Literal(watermark), sql.Identifier(c)) for c in self._catalogs]
        return {name: (count, written) for name, count, written in conn.execute(sql.SQL(" UNION ALL ").join(parts))}

    def changed(self, conn: psycopg.Connection[Any]) -> bool:
        """Whether anything but rows, sequence values and statistics differs from the
        template's state (see the class)."""
        rows = self._catalog_rows(conn, self._watermark)
        if {name: count for name, (count, _) in rows.items()} != self._catalog_counts or any(
                written for _, written in rows.values()):
            return True
        w = sql.Literal(self._watermark)
        row = _one(conn, sql.SQL(
            "SELECT (SELECT d.xmin::text::bigint >= {w} FROM pg_catalog.pg_database d"
            "         WHERE d.datname = current_database())"
            " OR EXISTS (SELECT 1 FROM pg_catalog.pg_db_role_setting s JOIN pg_catalog.pg_database d"
            "             ON d.oid = s.setdatabase WHERE d.datname = current_database())"
            " OR EXISTS (SELECT 1 FROM pg_catalog.pg_prepared_xacts WHERE database = current_database())"
        ).format(w=w))
        return bool(row[0])

    # -- the reset -----------------------------------------------------------------------------

    def _reset(self) -> bool:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            return False
        others = _CLIENTS.format(db="current_database()")
        if _one(conn, "SELECT count(pg_catalog.pg_terminate_backend(pid)) " + others)[0]:
            for _ in range(500):  # a terminated backend is gone within milliseconds
                if not _one(conn, "SELECT EXISTS (SELECT 1 " + others + ")")[0]:
                    break
                time.sleep(0.01)
            else:
                return False
        if self.changed(conn):
            return False
        planner, heap, indexes = self._sizes(conn)
        grown = sorted(t for t in planner if planner[t] != self._planner.get(t) or heap[t] >= self.truncate_pages
                       or indexes[t] >= self._index_pages.get(t, 0) + self.truncate_pages)
        # a handful of round trips, not one per table and sequence: the statements without
        # parameters go as one simple query each, the COPY of the template's rows one per table
        # that has any
        emptying: list[sql.Composable] = [sql.SQL("SET LOCAL session_replication_role = replica"),
                                          sql.SQL("SET LOCAL lock_timeout = '10s'")]
        if grown:
            emptying.append(sql.SQL("TRUNCATE {} CASCADE").format(sql.SQL(", ").join(sql.SQL(t) for t in grown)))
        emptying += [sql.SQL("DELETE FROM {}").format(sql.SQL(t)) for t, _ in self._tables if t not in grown]
        setvals = [sql.SQL("pg_catalog.setval({}::regclass, {}, {})").format(
            sql.Literal(seq), sql.Literal(last), sql.Literal(called)) for seq, last, called in self._sequences]
        with conn.transaction():
            conn.execute(sql.SQL("; ").join(emptying))
            for table, rows in self._tables:
                if rows:
                    with conn.cursor().copy(sql.SQL("COPY {} FROM STDIN").format(sql.SQL(table))) as copy:
                        copy.write(rows)
            # the last column is the reset's own transaction id: every later transaction's is larger,
            # and the catalog rows the reset wrote (a TRUNCATE's new relfilenode) are not the next test's
            xid = _one(conn, sql.SQL(
                "WITH gone AS (DELETE FROM pg_catalog.pg_statistic WHERE starelid = ANY ({}::regclass[]))"
                " SELECT {}pg_catalog.pg_stat_reset(), pg_catalog.txid_current() % 4294967296").format(
                sql.Literal(list(planner)), sql.SQL("").join(sql.SQL("{}, ").format(s) for s in setvals)))[-1]
        self._watermark = int(xid) + 1
        return True


def recycler(server: dict[str, Any], template: str) -> Iterator[Recycler]:
    """Yield a :class:`Recycler` of clones of ``template``; its database is dropped afterwards."""
    r = Recycler(server, template)
    try:
        yield r
    finally:
        r.close()


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
