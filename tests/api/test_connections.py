"""What the caller owns (docs/python.md, "Connections and transactions"):
the API never commits, so the caller's connection decides (autocommit, or
explicit transactions), and an idle transaction holds its locks; and the API
behind pgbouncer in transaction mode, how many services reach PostgreSQL.

pgbouncer is Debian's package, installed by ``tools/ensure-pgbouncer.sh``
(``make test`` runs it; as root through apt-get). Without it the pgbouncer
tests skip, naming why. Each starts its own pgbouncer on a private port with
a generated configuration and auth file, in front of the test server.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.testing import cluster


def pgbouncer_binary() -> str | None:
    return shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if os.access("/usr/sbin/pgbouncer", os.X_OK) else None)


def pgbouncer_version(binary: str) -> tuple[int, ...]:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"PgBouncer (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Bouncer:
    """A pgbouncer started by a test: ``dsn(dbname)`` connects through it."""

    def __init__(self, binary: str, server: dict[str, Any], pool_size: int, prepared_statements: int | None):
        self.base = Path(f"/tmp/findings-ledger-pgbouncer-{os.getpid()}-{free_port()}")
        self.base.mkdir(mode=0o755)
        self.port = free_port()
        user = server.get("user") or os.environ.get("PGUSER") or "postgres"
        self.user = user
        host = server.get("host") or "/var/run/postgresql"
        password = (server.get("password") or "").replace('"', '""')
        (self.base / "users.txt").write_text(f'"{user}" "{password}"\n')
        extra = "" if prepared_statements is None else f"max_prepared_statements = {prepared_statements}\n"
        (self.base / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={host} port={server.get('port') or 5432}\n"
            "[pgbouncer]\n"
            "listen_addr = 127.0.0.1\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.base / 'users.txt'}\n"
            "pool_mode = transaction\n"
            f"default_pool_size = {pool_size}\n"
            "max_client_conn = 100\n"
            "ignore_startup_parameters = extra_float_digits\n"
            f"logfile = {self.base / 'pgbouncer.log'}\n"
            f"pidfile = {self.base / 'pgbouncer.pid'}\n" + extra
        )
        if os.geteuid() == 0:  # pgbouncer refuses to run as root, like the server
            shutil.chown(self.base, user="postgres")
            for f in self.base.iterdir():
                shutil.chown(f, user="postgres")
        cmd = cluster._as_server_user([binary, str(self.base / "pgbouncer.ini")])
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.base / "pgbouncer.log").read_text() if (self.base / "pgbouncer.log").exists() else ""
                    raise RuntimeError(f"pgbouncer did not start: {self.proc.stderr.read() if self.proc.stderr else ''}"
                                       f"{log}") from None
                time.sleep(0.1)

    def dsn(self, dbname: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={dbname}"

    def stop(self) -> None:
        pidfile = self.base / "pgbouncer.pid"
        pid = int(pidfile.read_text().strip()) if pidfile.exists() else None
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        if pid is not None:  # runuser's child, the pgbouncer this test started
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.base, ignore_errors=True)


@pytest.fixture
def bouncer(ledger_server: dict[str, Any]) -> Iterator[Callable[..., Bouncer]]:
    binary = pgbouncer_binary()
    if binary is None:
        # make test runs tools/ensure-pgbouncer.sh, which installs it as root with apt-get: there, its
        # absence is a failure; only where it cannot be installed does the test skip
        assert not (os.geteuid() == 0 and shutil.which("apt-get")), \
            "pgbouncer is not installed although this is root with apt-get: run tools/ensure-pgbouncer.sh"
        pytest.skip("pgbouncer is not installed and this user cannot install it (apt-get install pgbouncer as root)")
    started: list[Bouncer] = []

    def start(pool_size: int = 2, prepared_statements: int | None = None) -> Bouncer:
        if prepared_statements is not None and pgbouncer_version(binary) < (1, 21):
            prepared_statements = None  # before 1.21 there is no such setting and no such support
        b = Bouncer(binary, ledger_server, pool_size, prepared_statements)
        started.append(b)
        return b

    try:
        yield start
    finally:
        for b in started:
            b.stop()


def dbname(dsn: str) -> str:
    return psycopg.conninfo.conninfo_to_dict(dsn)["dbname"]


def test_default_connections_collide_on_prepared_statements_in_transaction_mode(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    """Why docs/python.md asks for prepare_threshold=None: two clients that share
    one server connection both name their first prepared statement _pg3_0."""
    b = bouncer(pool_size=1, prepared_statements=0)
    with psycopg.connect(ledger_dsn, autocommit=True) as direct:
        fl.add_finding(direct, "spec", "a finding", paths=["a.py"])
    with psycopg.connect(b.dsn(dbname(ledger_dsn)), autocommit=True) as one, \
            psycopg.connect(b.dsn(dbname(ledger_dsn)), autocommit=True) as two:
        for _ in range(6):  # psycopg prepares a query from its 5th execution on (prepare_threshold=5)
            fl.active_findings(one, "spec")
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement, match='"_pg3_0" already exists'):
            for _ in range(6):
                fl.active_findings(two, "spec")


def test_the_api_in_transaction_mode_with_prepare_threshold_none(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    """Four services, two server connections: every call of theirs lands, with
    the settings docs/python.md recommends (autocommit, prepare_threshold=None)."""
    b = bouncer(pool_size=2)
    target = b.dsn(dbname(ledger_dsn))
    errors: list[BaseException] = []

    def service(n: int) -> None:
        try:
            with psycopg.connect(target, autocommit=True, prepare_threshold=None) as conn:
                scope = f"svc-{n}"
                retire_drift_on_touch(conn, scope)  # the path rule as such on the drift findings
                for i in range(12):
                    fl.add_finding(conn, scope, f"finding {i}", paths=[f"src/m{i}.py"], kind="drift",
                                   finding_key=f"F{i:02}")
                    assert len(fl.active_findings(conn, scope)) == 1
                    m = fl.record_merge(conn, scope, f"{n:02x}{i:06x}", [f"src/m{i}.py"], message=f"Rework m{i}")
                    assert m.recorded and len(m.superseded) == 1
                    assert fl.active_findings(conn, scope) == []
                assert len([a for a in fl.read_audit(conn, scope) if a.action == "superseded"]) == 12
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=service, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    with psycopg.connect(ledger_dsn) as direct:
        assert direct.execute("SELECT count(*), count(superseded_at) FROM ledger.finding").fetchone() == (48, 48)


def test_an_explicit_transaction_through_transaction_mode_is_all_or_nothing(
        bouncer: Callable[..., Bouncer], ledger_dsn: str) -> None:
    b = bouncer(pool_size=1)
    with psycopg.connect(b.dsn(dbname(ledger_dsn)), prepare_threshold=None) as conn:
        with conn.transaction():
            fl.add_finding(conn, "spec", "kept", paths=["a.py"])
            fl.record_merge(conn, "spec", "aaaa0001", ["b.py"])
        with pytest.raises(fl.PathRejected), conn.transaction():
            fl.add_finding(conn, "spec", "dropped with its transaction", paths=["c.py"])
            fl.add_finding(conn, "spec", "bad", paths=["../outside.py"])
        conn.commit()
    with psycopg.connect(ledger_dsn) as direct:
        assert direct.execute("SELECT title FROM ledger.finding").fetchall() == [("kept",)]
        assert direct.execute("SELECT count(*) FROM ledger.merge").fetchone() == (1,)


def test_the_api_never_commits_and_an_idle_transaction_blocks_ddl(ledger_dsn: str) -> None:
    """A read on a connection without autocommit leaves it idle in transaction,
    holding ACCESS SHARE on what it read: an ALTER TABLE waits for it (here:
    fails after lock_timeout) until the caller commits or rolls back."""
    with psycopg.connect(ledger_dsn) as reader, psycopg.connect(ledger_dsn, autocommit=True) as dba:
        first = fl.add_finding(dba, "spec", "committed", paths=["a.py"])
        assert [f.id for f in fl.active_findings(reader, "spec")] == [first.id]
        assert reader.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        pid = reader.info.backend_pid
        assert dba.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (
            "idle in transaction",)
        dba.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            dba.execute("ALTER TABLE ledger.finding ADD COLUMN probe integer")
        f = fl.add_finding(reader, "spec", "not committed yet", paths=["b.py"])
        assert dba.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)  # invisible until commit
        reader.commit()
        assert dba.execute("SELECT id FROM ledger.finding ORDER BY id").fetchall() == [(first.id,), (f.id,)]
        with dba.transaction(force_rollback=True):  # nothing holds the table now
            dba.execute("ALTER TABLE ledger.finding ADD COLUMN probe integer")
