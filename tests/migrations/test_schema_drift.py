"""sql/ is the current schema: ``psql -f sql/install.sql`` on an empty
database builds exactly what ``alembic upgrade head`` builds (the drift
check). Compared as normalised ``pg_dump --schema-only`` (every table,
column, constraint, index, function body, trigger, view, policy, grant and
comment) plus ``pg_get_functiondef`` of every function, and the rows the
schema ships. It fails when sql/ changed without a revision
(``make revision M=...``), or a revision without sql/."""

from __future__ import annotations

from collections.abc import Callable

import psycopg
from support.migrations import ROOT, VERSION_TABLE, assert_same_schema, psql_file

from findings_ledger.migration_ops import includes

SQL_DIR = ROOT / "sql"


def test_sql_install_builds_exactly_the_migrated_schema(ledger_database_factory: Callable[..., str]) -> None:
    migrated = ledger_database_factory()
    installed = ledger_database_factory(migrated=False)
    psql_file(installed, SQL_DIR / "install.sql")
    with psycopg.connect(installed) as conn:  # the only object alembic adds
        conn.execute(VERSION_TABLE)
    assert_same_schema(migrated, installed, "psql -f sql/install.sql")
    shipped = "SELECT failure_reason, note FROM ledger.poisoned_failure_reason ORDER BY 1"
    with psycopg.connect(migrated) as a, psycopg.connect(installed) as b:
        assert a.execute(shipped).fetchall() == b.execute(shipped).fetchall() != []


def test_install_sql_includes_every_file_once() -> None:
    included = includes((SQL_DIR / "install.sql").read_text())
    files = sorted(p.relative_to(SQL_DIR).as_posix() for p in SQL_DIR.rglob("*.sql") if p.name != "install.sql")
    assert sorted(included) == files
    assert len(set(included)) == len(included)
