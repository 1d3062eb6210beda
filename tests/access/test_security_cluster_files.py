"""Local users against the throwaway cluster's files in a shared /tmp.

The attacks plant, where the cluster helper (as root in CI) will look: a
symbolic link instead of the cluster directory, a directory another user
made (mode 777, ``server.log`` a symbolic link to a file of the attacker's
choice), a FIFO, a symbolic link or another user's file as a lock file, a
lock held by another process for ever, and a ``LEDGER_PG_BINARIES``
directory others can write. Each is refused with one line naming the path,
nothing of the target changes, and no program from the writable directory
runs. Another user's objects are made with ``os.chown`` to ``nobody``, so
those tests need root (they are skipped for a normal user, who cannot give
a file away).
"""

from __future__ import annotations

import fcntl
import os
import pwd
import socket
import threading
from pathlib import Path

import pytest

from findings_ledger.testing import cluster, pg_binaries

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="making another user's files needs root (os.chown)")


def _nobody() -> int:
    return pwd.getpwnam("nobody").pw_uid


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start(base: Path) -> str:
    with pytest.raises(cluster.ClusterError) as info:
        cluster.ensure_cluster(cluster.Cluster(base=base, port=_free_port()))
    return str(info.value)


def test_a_symlink_planted_as_the_cluster_directory_is_refused_and_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "root-only"
    target.mkdir(mode=0o700)
    (target / "secret").write_text("s")
    before = os.stat(target)
    link = tmp_path / "findings-ledger-pg.1"
    link.symlink_to(target)
    message = _start(link)
    assert "is a symbolic link: refused" in message and str(link) in message
    after = os.stat(target)
    assert (after.st_uid, after.st_mode) == (before.st_uid, before.st_mode)
    assert sorted(p.name for p in target.iterdir()) == ["secret"]


@as_root
def test_a_directory_another_user_made_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "findings-ledger-pg.2"
    base.mkdir()
    os.chmod(base, 0o777)
    chosen = tmp_path / "attacker-chose-this"
    chosen.write_text("")
    (base / "server.log").symlink_to(chosen)
    os.chown(base, _nobody(), -1)
    message = _start(base)
    assert f"belongs to uid {_nobody()}" in message and "another OS user" in message
    assert "remove" not in message  # another user's cluster is not the caller's to remove
    assert chosen.read_text() == ""
    assert not (base / "data").exists()


def test_a_directory_others_may_write_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "findings-ledger-pg.3"
    base.mkdir()
    os.chmod(base, 0o777)
    message = _start(base)
    assert "is writable by other users (mode 0777)" in message
    assert not (base / "data").exists()


def test_a_symlinked_server_log_in_an_own_directory_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "findings-ledger-pg.4"
    base.mkdir(mode=0o700)
    chosen = tmp_path / "elsewhere"
    chosen.write_text("")
    (base / "server.log").symlink_to(chosen)
    assert "server.log is a symbolic link: refused" in _start(base)
    assert chosen.read_text() == ""


def _lock_in_thread(server: dict[str, object], **kwargs: float) -> list[object]:
    outcome: list[object] = []

    def take() -> None:
        try:
            with cluster.catalog_lock(server, **kwargs):
                outcome.append("held")
        except cluster.ClusterError as exc:
            outcome.append(str(exc))

    worker = threading.Thread(target=take, daemon=True)
    worker.start()
    worker.join(120)  # a hang is the failure this guards against: the open or the lock never returns
    assert not worker.is_alive(), "catalog_lock did not return"
    return outcome


def _server() -> dict[str, object]:
    return {"host": f"h5-lock-test-{os.getpid()}", "port": _free_port()}


def test_a_fifo_as_the_catalog_lock_file_is_refused_without_blocking() -> None:
    server = _server()
    path = cluster.catalog_lock_path(server)
    os.mkfifo(path, 0o644)
    try:
        outcome = _lock_in_thread(server)
        assert len(outcome) == 1 and "is not a regular file: refused" in str(outcome[0]), outcome
    finally:
        path.unlink()


def test_a_symlink_as_the_catalog_lock_file_is_refused(tmp_path: Path) -> None:
    server = _server()
    path = cluster.catalog_lock_path(server)
    target = tmp_path / "victim"
    target.write_text("keep")
    path.symlink_to(target)
    try:
        outcome = _lock_in_thread(server)
        assert len(outcome) == 1 and "is a symbolic link: refused" in str(outcome[0]), outcome
        assert target.read_text() == "keep"
    finally:
        path.unlink()


@as_root
def test_a_catalog_lock_file_of_another_user_is_refused() -> None:
    server = _server()
    path = cluster.catalog_lock_path(server)
    path.write_text("")
    os.chown(path, _nobody(), -1)
    try:
        outcome = _lock_in_thread(server)
        assert len(outcome) == 1 and f"belongs to uid {_nobody()}" in str(outcome[0]), outcome
    finally:
        path.unlink()


def test_a_catalog_lock_held_by_another_process_is_given_up_with_one_line() -> None:
    server = _server()
    path = cluster.catalog_lock_path(server)
    with cluster.catalog_lock(server):
        pass  # creates the file as the helper does
    holder = os.open(path, os.O_RDONLY)  # another open file description: flock treats it as another process
    try:
        fcntl.flock(holder, fcntl.LOCK_EX)
        outcome = _lock_in_thread(server, timeout=0.5)
        assert len(outcome) == 1, outcome
        line = str(outcome[0])
        assert line.startswith("gave up after 0.5 s waiting for the lock file") and str(path) in line
        assert "\n" not in line
    finally:
        os.close(holder)
        path.unlink()


def test_a_binaries_directory_others_can_write_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    marker = tmp_path / "ran"
    for name in ("initdb", "pg_ctl", "postgres"):
        program = bindir / name
        program.write_text(f"#!/bin/sh\ntouch {marker}\necho 'postgres (PostgreSQL) 16.0'\n")
        program.chmod(0o755)
    os.chmod(bindir, 0o777)
    with pytest.raises(pg_binaries.BinariesError) as info:
        pg_binaries.resolve(str(bindir))
    assert "other users could replace the server programs" in str(info.value)
    assert f"{bindir} is owned by uid {os.geteuid()} with mode 0777" in str(info.value)
    assert not marker.exists()
    os.chmod(bindir, 0o755)
    (bindir / "postgres").chmod(0o777)
    with pytest.raises(pg_binaries.BinariesError) as info:
        pg_binaries.resolve(str(bindir))
    assert "postgres is owned by" in str(info.value) and "0777" in str(info.value)
    (bindir / "postgres").chmod(0o755)
    assert pg_binaries.resolve(str(bindir)).bindir == bindir.resolve()  # only the owner can write: accepted
    assert not marker.exists()


def test_an_unset_ledger_pg_binaries_is_named_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_binaries.ENV, raising=False)
    datadir = tmp_path / "data"
    datadir.mkdir()
    (datadir / "PG_VERSION").write_text("9\n")
    message = pg_binaries.datadir_mismatch(cluster.bindir(), datadir)
    assert message is not None
    assert f"{pg_binaries.ENV} unset" in message and "''" not in message


def test_two_starts_at_once_on_a_fresh_port_both_succeed(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    base = Path(f"/tmp/findings-ledger-h5test-{os.getpid()}-{tmp_path.name}")  # the server user can reach it
    shutil.rmtree(base, ignore_errors=True)
    port = _free_port()
    env = {**os.environ, "LEDGER_PGPORT": str(port), "LEDGER_PGDIR": str(base)}
    env.pop("LEDGER_DSN", None)
    start = [sys.executable, "-m", "findings_ledger.testing.cluster", "start"]
    try:
        procs = [subprocess.Popen(start, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        outs = [p.communicate(timeout=180) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        assert all(out.startswith("PostgreSQL running: LEDGER_DSN=") for out, _ in outs), outs
    finally:
        cluster.stop_cluster(cluster.Cluster(base=base, port=port), mode="immediate")
        shutil.rmtree(base, ignore_errors=True)
        (base.parent / f".{base.name}.lock").unlink(missing_ok=True)
