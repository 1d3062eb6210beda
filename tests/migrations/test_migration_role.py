"""A migration role without CREATEROLE (docs/dba.md, "Roles to grant"): once
a DBA has created the four group roles, a role that owns its database but
may not create or comment on roles runs the migrations to head and back;
it leaves the role comments alone and says so with a NOTICE."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from support.migrations import ROOT, downgrade, revisions, stamp, upgrade, version
from support.security import ROLES

from findings_ledger.migration_ops import expand_includes
from findings_ledger.testing.cluster import catalog_lock

VERSIONS = ROOT / "migrations" / "versions"


@pytest.fixture()
def migrator_dsn(ledger_server: dict[str, Any], ledger_database_factory: Callable[..., str]) -> Iterator[str]:
    ledger_database_factory()  # the four roles exist: the test template created them
    name = f"migrator_{uuid.uuid4().hex[:8]}"
    admin = make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {name} LOGIN NOCREATEROLE NOCREATEDB NOSUPERUSER")
        conn.execute(f"CREATE DATABASE {name} OWNER {name}")
    try:
        yield make_conninfo(admin, dbname=name, user=name)
    finally:
        with catalog_lock(admin), psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"DROP ROLE IF EXISTS {name}")


def test_a_migration_role_without_createrole_migrates_up_and_down(migrator_dsn: str) -> None:
    with psycopg.connect(migrator_dsn) as conn:
        assert conn.execute("SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user"
                            ).fetchone() == (False,)
    notices: list[str] = []
    with psycopg.connect(migrator_dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda diag: notices.append(diag.message_primary or ""))
        conn.execute(expand_includes(VERSIONS / "0001_baseline" / "roles.sql"))
    assert sorted(n.split(" ")[1] for n in notices if "left without its comment" in n) == sorted(ROLES)
    upgrade(migrator_dsn, "head")
    assert version(migrator_dsn) == [revisions()[-1]]
    with psycopg.connect(migrator_dsn) as conn:
        owner = conn.execute("SELECT pg_get_userbyid(relowner) = current_user FROM pg_class "
                             "WHERE oid = 'ledger.finding'::regclass").fetchone()
        assert owner == (True,)
        grants = conn.execute("SELECT has_table_privilege('ledger_reader', 'ledger.finding', 'SELECT')").fetchone()
        assert grants == (True,)
    downgrade(migrator_dsn, "base")
    assert version(migrator_dsn) == []
    with psycopg.connect(migrator_dsn) as conn:  # the roles stay: other databases of the cluster use them
        assert conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = ANY (%s)", (list(ROLES),)).fetchone() \
            == (len(ROLES),)


def test_psql_f_as_a_migration_role_without_createrole_says_which_comments_it_left(migrator_dsn: str) -> None:
    """The DBA's path (docs/dba.md): ``psql -f`` of every revision's upgrade.sql,
    and its concurrently.sql, each followed by its stamp, as that role: it succeeds, and the NOTICE names
    each role whose comment it could not set."""
    import subprocess
    from pathlib import Path

    from findings_ledger.testing.schema_dump import client_binary

    versions = Path(__file__).resolve().parents[2] / "migrations" / "versions"
    notices = ""
    for rev in revisions():
        for name in ("upgrade.sql", "concurrently.sql"):
            if not (versions / rev / name).exists():
                continue
            proc = subprocess.run([client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", migrator_dsn,
                                   "-f", str(versions / rev / name)], capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr
            notices += proc.stderr
        stamp(migrator_dsn, rev)  # as alembic stamp does: the next upgrade.sql checks it
    for role in ("ledger_writer", "ledger_reader", "ledger_agent", "ledger_admin"):
        assert f"role {role} left without its comment" in notices
    with psycopg.connect(migrator_dsn) as conn:
        assert conn.execute("SELECT has_function_privilege('ledger_reader', "
                            "'ledger.read_finding_events(bigint[])', 'EXECUTE')").fetchone() == (True,)
