"""pytest plugin: a migrated, empty ledger database per test.

Installed as the ``findings_ledger`` pytest11 entry point, so any project
that depends on findings-ledger gets these fixtures without configuration:

``ledger_server`` (session)
    connection parameters of the server: ``LEDGER_DSN`` (or
    ``--ledger-dsn``) when set, otherwise the throwaway cluster of
    :mod:`findings_ledger.cluster`, started on demand (root-safe: as root the
    server runs as the ``postgres`` OS user).
``ledger_template`` (session)
    name of a template database migrated to head once per session with the
    real alembic revisions (pytest-postgresql's ``DatabaseJanitor``).
``ledger_dsn``
    DSN of a fresh database cloned from the template for this test, dropped
    afterwards.
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
id, so concurrent runs against one server do not collide. See
docs/testing.md for a walk-through and examples/service/ for a project
that uses these fixtures.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from pytest_postgresql.janitor import DatabaseJanitor

from . import cluster
from .api import migrate

_counter = itertools.count()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("findings-ledger")
    group.addoption(
        "--ledger-dsn",
        default=None,
        help="libpq DSN of an existing server for ledger test databases (default: $LEDGER_DSN, "
        "else a throwaway cluster)",
    )


@pytest.fixture(scope="session")
def ledger_server(request: pytest.FixtureRequest) -> dict[str, Any]:
    """Connection parameters (host, port, user, password, dbname) of the
    maintenance database on the server the ledger tests use."""
    dsn = request.config.getoption("--ledger-dsn") or os.environ.get(cluster.DSN_ENV)
    if not dsn:
        dsn = cluster.ensure_cluster().dsn("postgres")
    params = conninfo_to_dict(dsn)
    params.setdefault("dbname", "postgres")
    return params


def _janitor(server: dict[str, Any], dbname: str, template: str | None = None, as_template: bool = False) -> Any:
    # Parameters the DSN leaves out stay None, so libpq fills them in (PGHOST,
    # PGPORT, PGUSER, the Unix socket) exactly as for the test connections.
    libpq: dict[str, Any] = {key: server.get(key) for key in ("user", "host", "port", "password")}
    return DatabaseJanitor(
        **libpq,
        dbname=dbname,
        template_dbname=template,
        maintenance_dbname=server["dbname"],
        as_template=as_template,
    )


def database_dsn(server: dict[str, Any], dbname: str) -> str:
    """DSN of database ``dbname`` on ``server``."""
    return make_conninfo(**{**server, "dbname": dbname})


@pytest.fixture(scope="session")
def ledger_template(ledger_server: dict[str, Any]) -> Iterator[str]:
    """A template database migrated to head once for the session."""
    name = f"ledger_tmpl_{os.getpid()}"
    janitor = _janitor(ledger_server, name, as_template=True)
    janitor.drop()
    janitor.init()
    try:
        migrate(database_dsn(ledger_server, name))
        yield name
    finally:
        janitor.drop()


@pytest.fixture
def ledger_dsn(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[str]:
    """DSN of a fresh, migrated, empty ledger database for one test."""
    name = f"ledger_test_{os.getpid()}_{next(_counter)}"
    with _janitor(ledger_server, name, template=ledger_template):
        yield database_dsn(ledger_server, name)


@pytest.fixture
def ledger_dsn_factory(ledger_database_factory: Callable[..., str]) -> Callable[[], str]:
    """A callable returning the DSN of a further fresh, migrated, empty
    database on each call (``ledger_database_factory`` with ``migrated=True``);
    every one is dropped after the test."""
    return lambda: ledger_database_factory(migrated=True)


@pytest.fixture
def ledger_conn(ledger_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """An autocommit psycopg connection to the test's ledger database."""
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def ledger_database_factory(
    request: pytest.FixtureRequest, ledger_server: dict[str, Any]
) -> Iterator[Callable[..., str]]:
    """A function ``make(migrated=True) -> dsn``: each call creates a fresh
    database, a clone of the migrated template or (``migrated=False``) an
    empty one; every database it made is dropped after the test. The
    session's template is migrated only when a migrated database is asked
    for."""
    janitors: list[Any] = []

    def make(migrated: bool = True) -> str:
        name = f"ledger_test_{os.getpid()}_{next(_counter)}"
        template = request.getfixturevalue("ledger_template") if migrated else None
        janitor = _janitor(ledger_server, name, template=template)
        janitor.init()
        janitors.append(janitor)
        return database_dsn(ledger_server, name)

    try:
        yield make
    finally:
        for janitor in reversed(janitors):
            janitor.drop()


@pytest.fixture
def ledger_empty_dsn(ledger_database_factory: Callable[..., str]) -> str:
    """DSN of a fresh, empty database (no revision applied) for one test."""
    return ledger_database_factory(migrated=False)
