"""Where the test databases live (findings_ledger.testing.databases.test_tablespace):
on the throwaway cluster, in the tablespace ``ledger_test_tmpfs`` on /dev/shm when
that is a tmpfs with room; on any other server (a DSN given), in its default
tablespace; a role that is not a superuser may use it; a directory a reboot took
is made again with the server's version directory."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from findings_ledger.testing import cluster, databases


def _chosen(server: dict[str, Any]) -> str:
    """The tablespace the kit chose for ``server``'s test databases (its cached answer)."""
    return databases.test_tablespace(server.get("host"), server.get("port"), server.get("user")) or "pg_default"


def _on_tmpfs(server: dict[str, Any]) -> None:
    """Skip unless the run uses the throwaway cluster and /dev/shm is a tmpfs with room (CI's machine: a
    skip there fails the run, LEDGER_FAIL_ON_SKIP=1)."""
    if os.environ.get(cluster.DSN_ENV) or str(server.get("host")) not in databases._THROWAWAY_HOSTS:
        pytest.skip("a server given by DSN keeps its default tablespace")
    if not databases._is_tmpfs(databases.TMPFS) or shutil.disk_usage(databases.TMPFS).free < databases.TMPFS_FREE:
        pytest.skip(f"{databases.TMPFS} is no tmpfs with {databases.TMPFS_FREE} bytes free")


def _tablespace_of(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace "
                       "WHERE d.datname = current_database()").fetchone()
    assert row is not None
    return str(row[0])


def test_a_test_database_lives_on_the_tmpfs_of_the_throwaway_cluster(ledger_server: dict[str, Any],
                                                                   ledger_conn: psycopg.Connection[Any]) -> None:
    assert _tablespace_of(ledger_conn) == _chosen(ledger_server)
    _on_tmpfs(ledger_server)
    assert _chosen(ledger_server) == databases.TABLESPACE
    location = ledger_conn.execute("SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = %s",
                                   (databases.TABLESPACE,)).fetchone()
    assert location is not None and Path(location[0]).parent == databases.TMPFS
    assert Path(location[0]).name.startswith(f"findings-ledger-ts.{ledger_server['port']}")
    assert Path(location[0]).stat().st_mode & 0o777 == 0o700


def test_a_server_that_is_not_a_throwaway_cluster_keeps_its_default_tablespace(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "PG_VERSION").write_text("15\n")  # looks like a cluster, but no DSN chose it as one
    assert databases.test_tablespace(str(tmp_path), 5432, "postgres") is None
    assert databases.test_tablespace("db.example.com", 5432, "postgres") is None  # a TCP host
    assert databases.test_tablespace(None, None, None) is None


def test_a_role_that_is_not_a_superuser_creates_its_databases_there(ledger_server: dict[str, Any]) -> None:
    role = f"ledger_ts_{os.getpid()}"
    admin = psycopg.connect(**{k: v for k, v in ledger_server.items() if v is not None}, autocommit=True)
    admin.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEDB").format(sql.Identifier(role)))
    try:
        name = databases.unique_name("ledger_test")
        with databases.janitor({**ledger_server, "user": role}, name):
            with psycopg.connect(databases.database_dsn(ledger_server, name)) as conn:
                assert _tablespace_of(conn) == _chosen(ledger_server)
    finally:
        with cluster.catalog_lock(ledger_server, exclusive=True):
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))
        admin.close()


def test_a_tablespace_directory_a_reboot_took_is_made_again(ledger_server: dict[str, Any]) -> None:
    """The directory gone: the tablespace's directory (where it was made,
    whatever location is asked for now) is made again with the server's
    version directory inside, and a database can be created there.
    A tablespace of the test's own, so that no other test's databases are in
    the directory taken away."""
    _on_tmpfs(ledger_server)
    own = f"ledger_test_reboot_{os.getpid()}"
    location = databases.TMPFS / f"findings-ledger-ts-reboot.{os.getpid()}"
    admin = psycopg.connect(**{k: v for k, v in ledger_server.items() if v is not None}, autocommit=True)
    try:
        assert databases.ensure_tablespace(ledger_server, own, location) == own
        assert location.stat().st_mode & 0o777 == 0o700
        shutil.rmtree(location)  # the reboot
        # asked with another location (the name a later version of the kit would give it): the tablespace
        # is where it was made, and that directory is made again
        assert databases.ensure_tablespace(ledger_server, own, location.with_name(location.name + "-b")) == own
        assert not location.with_name(location.name + "-b").exists()
        version = admin.execute("SELECT 'PG_' || current_setting('server_version_num')::int / 10000 || '_' || "
                                "catalog_version_no FROM pg_control_system()").fetchone()
        assert version is not None and (location / version[0]).is_dir()
        name = databases.unique_name("ledger_test")
        admin.execute(sql.SQL("CREATE DATABASE {} TABLESPACE {}").format(sql.Identifier(name), sql.Identifier(own)))
        with cluster.catalog_lock(ledger_server):
            admin.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))
    finally:
        admin.execute(sql.SQL("DROP TABLESPACE IF EXISTS {}").format(sql.Identifier(own)))
        admin.close()
        shutil.rmtree(location, ignore_errors=True)
