"""Every user mistake at the command line is one ``error:`` line naming the
variable or the value, exit status 1, never a traceback (README, docs/cli.md).

Each case runs the click group the console script runs, in the test's
process (:func:`invoke`: the same parsing, the same error handling, what it
prints on stdout and stderr and its exit status; an exception that escapes
is a traceback in its stderr), and the cases where the process matters run
the real console script as a subprocess, as a person would (:func:`run`: a
malformed DSN for the first verb a user runs, a writer and the MCP server,
a port clash, a directory the server's user cannot write, ``cluster
start``): a malformed ``LEDGER_DSN`` / ``--dsn`` for every verb, a database without the
ledger schema for every verb that reads or writes it, ``LEDGER_PGPORT`` that
is not a port, a ``LEDGER_PGDIR`` that cannot be written, a port another
program holds (the port, the log and the server log's cause line; the data
directory the failed start had just initialised is removed, one that existed
before is kept and reused), and the DSN ``cluster start`` prints works for the
next command.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner
from support.gitrepo import build_repo

from findings_ledger.cli import main
from findings_ledger.testing import cluster

CLI = Path(sys.executable).with_name("findings-ledger")
DRIFT = {"drift_findings": [{"severity": "high", "description": "a.py is stale.", "artifact_ref": "a.py"}]}


def run(args: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in (cluster.DSN_ENV, cluster.PORT_ENV, cluster.DIR_ENV)}
    return subprocess.run([str(CLI), *args], env={**base, "COLUMNS": "200", **env}, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def invoke(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The click group in this process, with the environment ``run`` gives
    the console script (the test cluster's variables unset, then ``env``);
    an exception that escapes the group is a traceback in stderr."""
    unset: dict[str, str | None] = {name: None for name in (cluster.DSN_ENV, cluster.PORT_ENV, cluster.DIR_ENV)}
    result = CliRunner().invoke(main, args, env={**unset, "COLUMNS": "200", **env}, prog_name="findings-ledger")
    stderr = result.stderr
    if result.exc_info is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, stderr)


def one_error_line(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Assert exit status 1, no traceback, exactly one stderr line ``error: ...``
    holding every fragment; return it."""
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "During handling" not in out, out
    assert proc.returncode == 1, out
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("cli-inputs")
    build_repo(base / "repo")
    (base / "drift.json").write_text(json.dumps(DRIFT), encoding="utf-8")
    return {"repo": base / "repo", "drift": base / "drift.json"}


def verbs(inputs: dict[str, Path]) -> dict[str, list[str]]:
    """Every verb that connects, with valid arguments."""
    return {
        "migrate": ["migrate"],
        "demo": ["demo"],
        "active": ["active", "spec"],
        "audit": ["audit", "spec"],
        "prompt": ["prompt", "spec"],
        "history": ["history", "1"],
        "dismiss": ["dismiss", "1", "accepted", "--actor", "me", "--reason", "done"],
        "restore": ["restore", "1", "--actor", "me", "--reason", "back"],
        "verify": ["verify", "1", "resolved", "--evidence", "checked", "--verifier", "me"],
        "hygiene-mode": ["hygiene-mode", "spec", "dry"],
        "replay-git": ["replay-git", str(inputs["repo"]), "--scope", "spec"],
        "hygiene": ["hygiene", "--mode", "dry", str(inputs["repo"]), "--scope", "spec"],
        "import-findings": ["import-findings", str(inputs["drift"]), "--scope", "spec"],
        "reconcile": ["reconcile", "spec"],
        "scope-rls": ["scope-rls", "on"],
        "checks-lint": ["checks", "lint", str(inputs["drift"]), "--repo", str(inputs["repo"]), "--at", "HEAD"],
        "mcp": ["mcp", "--scope", "spec"],
    }


VERBS = ["migrate", "demo", "active", "audit", "prompt", "history", "dismiss", "restore", "verify", "hygiene-mode",
         "replay-git", "hygiene", "import-findings", "reconcile", "scope-rls", "checks-lint", "mcp"]
#: the verbs also run as the console script: the first verb a user runs, a writer and the MCP server
PROCESS_VERBS = ["migrate", "import-findings", "mcp"]
#: the verbs that read or write the schema without migrating first
SCHEMA_VERBS = [v for v in VERBS if v not in ("migrate", "demo")]


@pytest.mark.parametrize(("verb", "how"), [(v, "in-process") for v in VERBS] + [(v, "console script")
                                                                             for v in PROCESS_VERBS])
def test_a_malformed_ledger_dsn_is_one_line_naming_the_variable(verb: str, how: str, inputs: dict[str, Path]) -> None:
    proc = (invoke if how == "in-process" else run)(verbs(inputs)[verb], {"LEDGER_DSN": "this is not a dsn"})
    one_error_line(proc, "LEDGER_DSN is not a libpq DSN or postgresql:// URI", 'missing "=" after "this"')


def test_a_malformed_dsn_option_is_one_line_naming_the_option(inputs: dict[str, Path]) -> None:
    proc = invoke(["audit", "spec", "--dsn", "host=db port"], {"LEDGER_DSN": "host=/nowhere"})
    one_error_line(proc, "--dsn is not a libpq DSN")


@pytest.mark.parametrize("dsn", ["postgresql://me:hunter2@[::1", "postgresql://me:hunt%zzer2@db/app",
                                 "host=db password=hunter2 port"])
def test_a_malformed_dsn_never_echoes_its_password(dsn: str) -> None:
    """libpq quotes the part of a URI it stumbled on, sometimes all of it."""
    proc = invoke(["active", "spec"], {"LEDGER_DSN": dsn})
    line = one_error_line(proc, "LEDGER_DSN is not a libpq DSN or postgresql:// URI")
    assert "hunter2" not in proc.stdout + proc.stderr and "hunt%zzer2" not in line, line


@pytest.mark.parametrize("verb", SCHEMA_VERBS)
def test_a_database_without_the_schema_says_run_migrate(verb: str, inputs: dict[str, Path],
                                                        ledger_empty_dsn: str) -> None:
    proc = invoke(verbs(inputs)[verb], {"LEDGER_DSN": ledger_empty_dsn})
    name = psycopg.conninfo.conninfo_to_dict(ledger_empty_dsn)["dbname"]
    one_error_line(proc, f"database '{name}' has no ledger schema", "run `findings-ledger migrate` with the same "
                   "LEDGER_DSN first")
    with psycopg.connect(ledger_empty_dsn) as conn:  # nothing was created on the way
        assert conn.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'ledger'").fetchone() == (0,)


def test_a_migration_that_fails_in_the_database_is_one_line_and_changes_nothing(ledger_empty_dsn: str) -> None:
    """A revision that fails on the server (here an object the baseline
    creates is already there) is one line naming PostgreSQL's message, and
    its transaction leaves the database as it was."""
    with psycopg.connect(ledger_empty_dsn, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA ledger; CREATE TABLE ledger.finding (x integer)")
    proc = invoke(["migrate"], {"LEDGER_DSN": ledger_empty_dsn})
    one_error_line(proc, "migration failed:", 'relation "finding" already exists')
    with psycopg.connect(ledger_empty_dsn) as conn:
        tables = conn.execute("SELECT relname FROM pg_class WHERE relnamespace = 'ledger'::regnamespace").fetchall()
    assert tables == [("finding",)]


@pytest.mark.parametrize("value", ["abc", "0", "80", "70000", "-5", "54 329"])
def test_ledger_pgport_that_is_not_a_port_is_named(value: str, tmp_path: Path) -> None:
    proc = invoke(["active", "spec"], {"LEDGER_PGPORT": value, "LEDGER_PGDIR": str(tmp_path / "pg")})
    one_error_line(proc, f"LEDGER_PGPORT={value!r} is not a TCP port", "from 1024 to 65535")
    proc = subprocess.run([sys.executable, "-m", "findings_ledger.testing.cluster", "start"], capture_output=True,
                          text=True, env={**os.environ, "LEDGER_PGPORT": value})
    one_error_line(proc, f"LEDGER_PGPORT={value!r}")
    assert not (tmp_path / "pg").exists()


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_names_a_bad_ledger_pgport(verb: str, inputs: dict[str, Path]) -> None:
    one_error_line(invoke(verbs(inputs)[verb], {"LEDGER_PGPORT": "abc"}), "LEDGER_PGPORT='abc' is not a TCP port")


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_names_a_ledger_pgdir_below_a_file(verb: str, inputs: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "pg"
    proc = invoke(verbs(inputs)[verb], {"LEDGER_PGPORT": str(free_port()), "LEDGER_PGDIR": str(target)})
    one_error_line(proc, f"LEDGER_PGDIR='{target}'", "Not a directory", "set LEDGER_PGDIR to a directory you can write")


def test_a_ledger_pgdir_the_server_user_cannot_write_is_named(tmp_path: Path) -> None:
    # as root the server runs as the postgres OS user, who cannot enter a 0700 directory of root's;
    # a normal user (the server's user) cannot create a directory in a read-only one of their own
    # (a LEDGER_PGDIR of one's own the cluster may make private and use: that is no mistake)
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700 if os.geteuid() == 0 else 0o500)
    target, port = locked / "pg", free_port()
    try:
        proc = run(["active", "spec"], {"LEDGER_PGPORT": str(port), "LEDGER_PGDIR": str(target)})
        one_error_line(proc, f"LEDGER_PGDIR='{target}'", "set LEDGER_PGDIR to a directory")
        assert not target.exists()  # what the failed attempt created is gone again, no server left running
    finally:
        locked.chmod(0o700)
        if (target / "data" / "postmaster.pid").exists():  # a regression started a server there: stop it
            cluster.stop_cluster(cluster.Cluster(target, port), mode="immediate")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def held_port() -> Iterator[int]:
    """A port on 127.0.0.1 that another program (this listener) holds."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def private_dir(tmp_path: Path) -> Path:
    """A cluster directory the server's OS user can reach (as root: the postgres user cannot enter
    pytest's tmp_path below /tmp/pytest-of-root)."""
    d = Path(f"/tmp/findings-ledger-clitest-{os.getpid()}-{tmp_path.name}")
    shutil.rmtree(d, ignore_errors=True)
    return d


#: the verbs the port clash is tried with: the first verb a user runs, a writer and the long-running MCP server.
#: Every verb reaches the same start of the default cluster (helpers.resolve_dsn -> cluster.ensure_cluster:
#: test_every_verb_names_a_bad_ledger_pgport and test_every_verb_names_a_ledger_pgdir_below_a_file show each
#: verb there, on the checks it makes before initdb); what happens after initdb does not depend on the verb.
CLASH_VERBS = ["migrate", "import-findings", "mcp"]


@pytest.mark.parametrize("verb", CLASH_VERBS)
def test_a_port_clash_names_the_port_the_log_and_the_cause_and_removes_the_fresh_data_dir(
        verb: str, held_port: int, tmp_path: Path, inputs: dict[str, Path]) -> None:
    base = private_dir(tmp_path)
    try:
        proc = run(verbs(inputs)[verb], {"LEDGER_PGPORT": str(held_port), "LEDGER_PGDIR": str(base)})
        line = one_error_line(proc, f"the server did not start on port {held_port}",
                              'could not bind IPv4 address "127.0.0.1": Address already in use',
                              f"(log: {base / 'server.log'})", "set LEDGER_PGPORT to a free port",
                              "the data directory it had just initialised was removed")
        assert "Is another postmaster" not in line
        assert not (base / "data").exists()
        assert "Address already in use" in (base / "server.log").read_text()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_cluster_start_prints_a_dsn_the_next_command_can_use_and_keeps_a_data_dir_it_did_not_make(
        tmp_path: Path, inputs: dict[str, Path]) -> None:
    base, port = private_dir(tmp_path), free_port()
    env = {"LEDGER_PGPORT": str(port), "LEDGER_PGDIR": str(base)}
    start = [sys.executable, "-m", "findings_ledger.testing.cluster", "start"]
    try:
        proc = subprocess.run(start, capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
        assert proc.returncode == 0, proc.stderr
        m = re.fullmatch(r"PostgreSQL running: LEDGER_DSN='(.+)'", proc.stdout.strip())
        assert m, proc.stdout
        dsn = m.group(1)
        assert run(["migrate"], {"LEDGER_DSN": dsn}).returncode == 0  # the database exists
        assert invoke(verbs(inputs)["import-findings"], {"LEDGER_DSN": dsn}).returncode == 0
        listed = invoke(["active", "spec"], {"LEDGER_DSN": dsn})
        assert listed.returncode == 0 and "active findings of spec (1)" in listed.stdout, listed.stderr
        cluster.stop_cluster(cluster.Cluster(base=base, port=port))
        # the port is taken while the cluster is stopped: its data directory stays as it was
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen()
            line = one_error_line(run(["active", "spec"], env), f"port {port}", "Address already in use")
            assert "removed" not in line
            assert (base / "data" / "PG_VERSION").exists()
        again = subprocess.run(start, capture_output=True, text=True, env={**os.environ, **env}, timeout=120)
        assert again.returncode == 0, again.stderr
        assert "active findings of spec (1)" in invoke(["active", "spec"], {"LEDGER_DSN": dsn}).stdout  # reused
    finally:
        cluster.stop_cluster(cluster.Cluster(base=base, port=port), mode="immediate")
        shutil.rmtree(base, ignore_errors=True)
