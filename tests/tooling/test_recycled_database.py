"""The database behind ``ledger_dsn`` (findings_ledger.testing.databases.Recycler):
after a test it is in the template's state, rows, sequences and the planner's view
included, and a test that changed the schema or a setting gets the next test a new
clone instead of a reset."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

import findings_ledger as fl
from findings_ledger.testing import cluster
from findings_ledger.testing.databases import Recycler


@pytest.fixture
def recycler(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[Recycler]:
    r = Recycler(ledger_server, ledger_template)
    try:
        yield r
    finally:
        r.close()


def use(recycler: Recycler, work: Any) -> Any:
    """Lease the database for one "test" that runs ``work(conn)``; return what it returned."""
    lease = recycler.lease()
    dsn = next(lease)
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            return work(conn)
    finally:
        lease.close()


def state(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """What a test could see of a fresh ledger: rows, the next ids, the planner's view of a table."""
    return {
        "rows": conn.execute("SELECT (SELECT count(*) FROM ledger.finding), (SELECT count(*) FROM ledger.merge),"
                             " (SELECT count(*) FROM ledger.scope), (SELECT count(*) FROM ledger.supersession)")
        .fetchone(),
        "version": conn.execute("SELECT version_num FROM ledger.alembic_version").fetchall(),
        "planner": conn.execute("SELECT relpages, reltuples FROM pg_class WHERE oid = 'ledger.finding'::regclass")
        .fetchone(),
        "statistics": conn.execute("SELECT count(*) FROM pg_statistic WHERE starelid = 'ledger.finding'::regclass")
        .fetchone()[0],
    }


def write(conn: psycopg.Connection[Any]) -> tuple[int, int]:
    a = fl.add_finding(conn, "s", "Parser is stale", paths=["src/parser.py"])
    b = fl.record_merge(conn, "s", "abc1234", paths=["src/parser.py"], message="rework").merge_id
    return a.id, b


def test_rows_sequences_and_statistics_are_the_templates_after_a_test(recycler: Recycler) -> None:
    fresh = use(recycler, state)
    first_ids = use(recycler, write)

    def grow_and_analyse(conn: psycopg.Connection[Any]) -> None:
        for i in range(300):  # past the pages from which a table is truncated
            fl.add_finding(conn, "t", f"Finding number {i} with a longer message to fill pages", paths=[f"p/{i}.py"])
        conn.execute("ANALYZE ledger.finding")

    use(recycler, grow_and_analyse)
    assert use(recycler, state) == fresh
    assert use(recycler, write) == first_ids  # the same ids as on a fresh clone
    assert (recycler.clones, recycler.resets) == (1, 5)


@pytest.mark.parametrize("change", [
    "CREATE TABLE ledger.extra (x int)",
    "DROP TRIGGER _100_prepare ON ledger.finding",
    "COMMENT ON TABLE ledger.finding IS 'changed'",
    "GRANT SELECT ON ledger.merge TO PUBLIC",
    "CREATE TEMPORARY TABLE scratch (x int)",
    "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET work_mem = ''8MB''', current_database()); END $$",
])
def test_a_test_that_changes_the_schema_gets_the_next_a_new_clone(recycler: Recycler, change: str) -> None:
    names = [use(recycler, lambda conn: conn.execute("SELECT current_database()").fetchone()[0])]
    if change.startswith("DROP TRIGGER"):
        change = change.replace("_100_prepare", use(recycler, lambda conn: conn.execute(
            "SELECT min(tgname) FROM pg_trigger WHERE tgrelid = 'ledger.finding'::regclass"
            " AND NOT tgisinternal").fetchone()[0]))
    use(recycler, lambda conn: conn.execute(change))
    names.append(use(recycler, lambda conn: conn.execute("SELECT current_database()").fetchone()[0]))
    assert names[0] != names[1]
    assert recycler.clones == 2


def test_a_connection_left_open_is_terminated_and_its_rows_gone(recycler: Recycler) -> None:
    left: list[psycopg.Connection[Any]] = []

    def leave_one_open(conn: psycopg.Connection[Any]) -> None:
        other = psycopg.connect(conn.info.dsn)
        fl.add_finding(other, "s", "Written in an open transaction", paths=["a.py"])
        left.append(other)

    use(recycler, leave_one_open)
    try:
        assert use(recycler, state)["rows"] == (0, 0, 0, 0)
        with pytest.raises(psycopg.OperationalError):  # terminated by the reset
            left[0].execute("SELECT 1")
    finally:
        left[0].close()
    assert recycler.clones == 1


def test_a_role_that_is_not_a_superuser_gets_a_clone_per_test(ledger_server: dict[str, Any],
                                                              ledger_template: str) -> None:
    role = f"ledger_recycler_{os.getpid()}"
    admin = psycopg.connect(**{k: v for k, v in ledger_server.items() if v is not None}, autocommit=True)
    admin.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB").format(sql.Identifier(role)))
    try:
        r = Recycler({**ledger_server, "user": role}, ledger_template)
        try:
            names = [use(r, lambda conn: conn.execute("SELECT current_database()").fetchone()[0]) for _ in range(2)]
        finally:
            r.close()
        assert names[0] != names[1] and (r.clones, r.resets) == (2, 0)
    finally:
        with cluster.catalog_lock(ledger_server, exclusive=True):
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))
        admin.close()
