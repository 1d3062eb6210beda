"""A test run killed with SIGKILL leaves its template (``ledger_tmpl_<pid>``)
and databases (``ledger_test_<pid>_<n>``); the next run's session drops them
(the same host, a pid that is no longer alive, told apart from a reused pid
by its start time), and keeps those of another host or of a live run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from findings_ledger.testing import databases

KILLED = '''
import os, signal

def test_killed_mid_run(ledger_dsn):
    os.kill(os.getpid(), signal.SIGKILL)
'''

CLEAN = '''
def test_a_clean_run(ledger_dsn):
    assert ledger_dsn
'''


def names(server: dict[str, Any]) -> set[str]:
    with psycopg.connect(make_conninfo(**{k: v for k, v in server.items() if v is not None}), autocommit=True) as c:
        return {r[0] for r in c.execute("SELECT datname FROM pg_database WHERE datname LIKE 'ledger\\_%'")}


def inner_pytest(project: Path, source: str) -> subprocess.Popen[str]:
    (project / "test_inner.py").write_text(source)
    return subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q",
                             "test_inner.py"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_a_killed_runs_databases_are_dropped_by_the_next_run(tmp_path: Path, ledger_server: dict[str, Any]) -> None:
    killed = inner_pytest(tmp_path, KILLED)
    out, _ = killed.communicate(timeout=600)
    assert killed.returncode == -signal.SIGKILL, out
    left = {n for n in names(ledger_server) if n in (f"ledger_tmpl_{killed.pid}", f"ledger_test_{killed.pid}_0")}
    assert left == {f"ledger_tmpl_{killed.pid}", f"ledger_test_{killed.pid}_0"}
    assert set(databases.abandoned_databases(ledger_server)) >= left
    # another host's database with the same dead pid: never dropped from here
    other = f"ledger_test_{killed.pid}_999"
    admin = make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {other}")
        conn.execute(f"COMMENT ON DATABASE {other} IS "
                     f"'findings-ledger test database: host=elsewhere.invalid pid={killed.pid} start=1'")
    try:
        clean = inner_pytest(tmp_path, CLEAN)
        out, _ = clean.communicate(timeout=600)
        assert clean.returncode == 0, out
        after = names(ledger_server)
        assert not left & after
        assert other in after
        assert not any(n.startswith((f"ledger_tmpl_{clean.pid}", f"ledger_test_{clean.pid}_")) for n in after)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {other}")


def test_a_live_runs_databases_are_kept(ledger_server: dict[str, Any], ledger_dsn: str) -> None:
    mine = psycopg.conninfo.conninfo_to_dict(ledger_dsn)["dbname"]
    assert mine not in databases.abandoned_databases(ledger_server)
    assert f"ledger_tmpl_{os.getpid()}" not in databases.abandoned_databases(ledger_server)


def test_a_database_a_killed_drop_left_invalid_is_dropped(ledger_server: dict[str, Any]) -> None:
    """A DROP DATABASE killed half-way leaves the database invalid (``datconnlimit = -2``,
    PostgreSQL 15.4 and the minor releases of that day): it allows nothing but DROP, and
    ALTER of it ends the session. The next run drops it like any other and goes on."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid of this host that is no longer alive
    name = f"ledger_test_{gone.pid}_0"
    admin = make_conninfo(**{k: v for k, v in ledger_server.items() if v is not None})
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
        conn.execute(f"COMMENT ON DATABASE {name} IS "
                     f"'findings-ledger test database: host={socket.gethostname()} pid={gone.pid} start=1'")
        conn.execute("UPDATE pg_database SET datconnlimit = -2 WHERE datname = %s", (name,))  # what the kill leaves
    try:
        databases.drop_abandoned_databases(ledger_server)
        assert name not in names(ledger_server)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")


#: What a run killed at each step of its template's life leaves behind (the template is created
#: with ``IS_TEMPLATE = true``, its owner recorded, migrated; pytest-postgresql's drop refuses
#: connections, unmarks the template, then drops it): the statements that put a fresh template
#: into that state. A DROP DATABASE killed once it has begun leaves the database invalid
#: (``datconnlimit = -2``, PostgreSQL 15.4+, 14.9+, 13.12+), which allows nothing but DROP, and
#: ALTER of it ends the session (FATAL). "invalid template" is the state that neither DROP
#: ("cannot drop a template database") nor ALTER can leave.
KILLED_AT = {
    "created": [],
    "migrating": ["CREATE TABLE half_migrated (id int)"],
    "dropping, connections refused": ["ALTER DATABASE {db} WITH allow_connections false"],
    "dropping, no longer a template": ["ALTER DATABASE {db} WITH allow_connections false",
                                       "ALTER DATABASE {db} IS_TEMPLATE false"],
    "dropping, invalid": ["ALTER DATABASE {db} WITH allow_connections false", "ALTER DATABASE {db} IS_TEMPLATE false",
                          "UPDATE pg_database SET datconnlimit = -2 WHERE datname = '{db}'"],
    "invalid template": ["UPDATE pg_database SET datconnlimit = -2 WHERE datname = '{db}'"],
}


def _killed_template(server: dict[str, Any], step: str) -> str:
    """A template ``ledger_tmpl_<pid>`` of a run that is gone, left as a kill at ``step`` leaves it."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid of this host that is no longer alive
    name = f"ledger_tmpl_{gone.pid}"
    admin = make_conninfo(**{k: v for k, v in server.items() if v is not None})
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name} IS_TEMPLATE = true")
        conn.execute(f"COMMENT ON DATABASE {name} IS "
                     f"'findings-ledger test database: host={socket.gethostname()} pid={gone.pid} start=1'")
        for statement in KILLED_AT[step]:
            if "half_migrated" in statement:
                with psycopg.connect(make_conninfo(admin, dbname=name), autocommit=True) as db:
                    db.execute(statement)
            else:
                conn.execute(statement.format(db=name))
    return name


def _force_drop(server: dict[str, Any], name: str) -> None:
    admin = make_conninfo(**{k: v for k, v in server.items() if v is not None})
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("UPDATE pg_database SET datistemplate = false WHERE datname = %s", (name,))
        conn.execute(f"DROP DATABASE IF EXISTS {name}")


@pytest.mark.parametrize("step", list(KILLED_AT))
def test_a_template_killed_at_any_step_is_dropped_by_the_next_run(ledger_server: dict[str, Any], step: str) -> None:
    """Whatever step the kill interrupted, the next run's janitor drops the template and its
    maintenance connection goes on serving: the next template is created and cloned."""
    name = _killed_template(ledger_server, step)
    try:
        assert name in databases.drop_abandoned_databases(ledger_server)
        assert name not in names(ledger_server)
        assert databases._maintenance_connection(ledger_server).execute("SELECT 1").fetchone() == (1,)
        with databases.janitor(ledger_server, f"{name}_next", as_template=True) as _:
            pass
    finally:
        _force_drop(ledger_server, name)


@pytest.mark.parametrize("step", list(KILLED_AT))
def test_a_janitor_drops_its_own_database_in_any_state(ledger_server: dict[str, Any], step: str) -> None:
    """A run that finds its own template's name taken (a reused pid) drops it before creating
    it: pytest-postgresql's drop refuses connections first, which ends the session on an
    invalid database; the janitor drops an invalid one directly."""
    name = _killed_template(ledger_server, step)
    try:
        databases.janitor(ledger_server, name, as_template=True).drop()
        assert name not in names(ledger_server)
    finally:
        _force_drop(ledger_server, name)
