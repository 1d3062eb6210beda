"""pgbouncer in front of the test server, for the tests of the API behind a
transaction-mode pooler: :class:`Bouncer` (a private pgbouncer on a free
port with a generated configuration and auth file) and the ``bouncer``
fixture that starts them. pgbouncer is Debian's package, installed by
``tools/ensure-pgbouncer.sh`` (``make test`` runs it; as root through
apt-get): as root with apt-get its absence fails the test, elsewhere the
test skips, naming why."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

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
