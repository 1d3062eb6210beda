"""pytest plugin: a migrated, empty ledger database per test.

Installed as the ``findings_ledger`` pytest11 entry point, so any project
that depends on findings-ledger gets these fixtures without configuration.
This module imports nothing but pytest: the fixtures need pytest-postgresql
and filelock (``pip install 'findings-ledger[pytest]'``), and without it a pytest run is
unaffected; only a test that uses a ledger fixture fails, with one line
saying what to install.

``ledger_server`` (session)
    connection parameters of the server: ``--ledger-dsn`` or ``LEDGER_DSN``
    when set, otherwise the throwaway cluster of
    :mod:`findings_ledger.testing.cluster`, started on demand (root-safe: as
    root the server runs as the ``postgres`` OS user; under pytest-xdist the
    first worker starts it, the others wait on a file lock). Without a
    server (no binaries, a cluster that cannot start) the run stops with one
    line, exit status 4. Under pytest-xdist the controller checks
    ``LEDGER_PGPORT`` and the server binaries before the workers start (a
    project that runs xdist without these fixtures and without PostgreSQL
    can pass ``-p no:findings_ledger``).
``ledger_template`` (session)
    name of a template database migrated to head once per session with the
    real alembic revisions (pytest-postgresql's ``DatabaseJanitor``).
``ledger_dsn``
    DSN of a migrated database in the template's state for this test. One
    database per process serves one test after another: after each test
    its rows are deleted, the template's rows and sequence values put back
    and its statistics counters reset, in a few milliseconds where a new
    clone costs 50-300 ms. A test that changed anything else (DDL, a
    ``GRANT``, a ``COMMENT``, an extension, a temporary table, a database
    setting, a prepared transaction), a reset that fails, or a server role
    that is not a superuser gets the next test a new clone instead
    (:class:`~findings_ledger.testing.databases.Recycler`);
    ``--ledger-clone-each`` clones for every test. Other connections to
    the database are terminated after the test.
``ledger_recycler`` (session)
    the :class:`~findings_ledger.testing.databases.Recycler` behind
    ``ledger_dsn`` (``clones`` and ``resets`` count what it did), ``None``
    with ``--ledger-clone-each``.
``ledger_conn``
    a psycopg 3 connection to it with ``autocommit=True``.
``ledger_dsn_factory``
    a callable returning the DSN of one more fresh database cloned from the
    template each time it is called (all dropped after the test): for tests
    that compare two identical databases (same ids, same sequences).
``ledger_empty_dsn``
    DSN of a fresh, *empty* database (no revision applied), dropped
    afterwards: for tests of the migrations themselves (offline scripts,
    upgrades of populated databases, pytest-alembic's ``alembic_engine``).
``ledger_database_factory``
    a function ``make(migrated=True) -> dsn`` that creates one more fresh
    database per call (a clone of the template, or empty), all dropped
    afterwards: for tests that compare two databases.

The server's role needs CREATEDB. Database names carry the pytest process
id, so concurrent runs against one server do not collide. The fixtures are
built from :mod:`findings_ledger.testing.databases`. See docs/testing.md for
a walk-through and examples/service/ for a project that uses them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import psycopg

#: pytest's exit status when the ledger fixtures have no server (pytest's own "usage error").
EXIT_NO_SERVER = 4
NO_SERVER = "findings-ledger: no PostgreSQL for the ledger fixtures"

MISSING_EXTRA = (
    "the findings-ledger fixtures (ledger_*) need pytest-postgresql and filelock: "
    "pip install 'findings-ledger[pytest]'"
)
#: the top-level modules of the ``pytest`` extra
_EXTRA_MODULES = {"pytest_postgresql", "filelock"}


def _databases() -> ModuleType:
    """:mod:`findings_ledger.testing.databases`, or fail the requesting test
    with :data:`MISSING_EXTRA` when the ``pytest`` extra is not installed."""
    try:
        from . import databases
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in _EXTRA_MODULES:
            raise
    else:
        return databases
    pytest.fail(MISSING_EXTRA, pytrace=False)  # outside the except: no chained traceback


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("findings-ledger")
    group.addoption(
        "--ledger-dsn",
        default=None,
        help="libpq DSN of an existing server for ledger test databases (default: $LEDGER_DSN, "
        "else a throwaway cluster)",
    )
    group.addoption(
        "--ledger-clone-each",
        action="store_true",
        default=False,
        help="give every ledger_dsn test a new clone of the template instead of one database per process "
        "reset after each test",
    )


@pytest.fixture(scope="session")
def ledger_server(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Connection parameters (host, port, user, password, dbname) of the
    maintenance database on the server the ledger tests use. When there is
    no server to be had (no server binaries, a bad ``LEDGER_PGPORT``, a
    cluster that does not start) the run stops with that one line."""
    databases = _databases()
    try:
        params: dict[str, Any] = databases.server_params(request.config.getoption("--ledger-dsn"))
    except databases.cluster.ClusterError as exc:
        message = f"{NO_SERVER}: {exc}"
    else:
        return params
    # outside the except: no chained traceback
    if not hasattr(request.config, "workerinput"):
        pytest.exit(message, returncode=EXIT_NO_SERVER)
    # a pytest-xdist worker cannot exit the run (xdist reports that as an internal error): it
    # stops after this test, and the controller stops the run with the same line
    request.session.shouldstop = message
    pytest.fail(message, pytrace=False)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under pytest-xdist, before the workers start: when the throwaway
    cluster is to be used, check that it can be (``LEDGER_PGPORT``, the
    server binaries; nothing is started or installed), so that a machine
    without PostgreSQL gets one line rather than one error per worker."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    if config.getoption("--ledger-dsn") or os.environ.get("LEDGER_DSN"):
        return
    from . import cluster

    try:
        cluster.default_cluster()
        cluster.bindir()
    except cluster.ClusterError as exc:
        raise pytest.UsageError(f"{NO_SERVER}: {exc}") from None


@pytest.fixture(scope="session")
def ledger_template(ledger_server: dict[str, Any]) -> Iterator[str]:
    """A template database migrated to head once for the session."""
    yield from _databases().template_database(ledger_server)


@pytest.fixture(scope="session")
def ledger_recycler(
    request: pytest.FixtureRequest, ledger_server: dict[str, Any], ledger_template: str
) -> Iterator[Any]:
    """The :class:`~findings_ledger.testing.databases.Recycler` behind ``ledger_dsn``: one
    database per process, reset to the template's state after each test (``None`` with
    ``--ledger-clone-each``)."""
    if request.config.getoption("--ledger-clone-each"):
        yield None
        return
    yield from _databases().recycler(ledger_server, ledger_template)


@pytest.fixture
def ledger_dsn(ledger_server: dict[str, Any], ledger_template: str, ledger_recycler: Any) -> Iterator[str]:
    """DSN of a migrated, empty ledger database in the template's state for one test."""
    if ledger_recycler is None:
        yield from _databases().fresh_database(ledger_server, ledger_template)
    else:
        yield from ledger_recycler.lease()


@pytest.fixture
def ledger_dsn_factory(ledger_database_factory: Callable[..., str]) -> Callable[[], str]:
    """A callable returning the DSN of a further fresh, migrated, empty
    database on each call (``ledger_database_factory`` with ``migrated=True``);
    every one is dropped after the test."""
    return lambda: ledger_database_factory(migrated=True)


@pytest.fixture
def ledger_conn(ledger_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit psycopg connection to the test's ledger database."""
    yield from _databases().autocommit_connection(ledger_dsn)


@pytest.fixture
def ledger_database_factory(
    request: pytest.FixtureRequest, ledger_server: dict[str, Any]
) -> Iterator[Callable[..., str]]:
    """A function ``make(migrated=True) -> dsn``: each call creates a fresh
    database, a clone of the migrated template or (``migrated=False``) an
    empty one; every database it made is dropped after the test. The
    session's template is migrated only when a migrated database is asked
    for."""
    yield from _databases().database_factory(ledger_server, lambda: request.getfixturevalue("ledger_template"))


@pytest.fixture
def ledger_empty_dsn(ledger_database_factory: Callable[..., str]) -> str:
    """DSN of a fresh, empty database (no revision applied) for one test."""
    return ledger_database_factory(migrated=False)
