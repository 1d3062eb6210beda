"""The lines of make test's set-up scripts where they cannot install a thing:

* tools/ensure-plpgsql-check.sh for a server that is not Debian's (the
  embedded PyPI/npm builds) names Debian's packages that lint with Debian's
  server, for the major apt-get knows, never the embedded server's major
  (Debian ships no postgresql-18-plpgsql-check beside its PostgreSQL 15);
* tools/ensure-pgbouncer.sh names every test module that skips without
  pgbouncer (the ones whose tests take the ``bouncer`` fixture)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "ensure-plpgsql-check.sh"
TESTS = ROOT / "tests"


def _server(tmp_path: Path, major: int) -> Path:
    bindir = tmp_path / "embedded" / "bin"
    bindir.mkdir(parents=True)
    postgres = bindir / "postgres"
    postgres.write_text(f'#!/bin/sh\necho "postgres (PostgreSQL) {major}.1"\n')
    postgres.chmod(0o755)
    return bindir


def _run(bindir: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PG_BINDIR": str(bindir), "PATH": path}
    return subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60)


def test_a_server_not_debians_is_told_debians_packages_of_the_major_apt_knows(tmp_path: Path) -> None:
    proc = _run(_server(tmp_path, 99), os.environ["PATH"])
    lines = proc.stderr.splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "postgresql-99" not in lines[0] and "LEDGER_PG_BINARIES=system make lint" in lines[0]
    named = re.findall(r"postgresql-(\d+)-plpgsql-check", lines[0])
    if shutil.which("apt-cache"):
        known = subprocess.run(["apt-cache", "search", "--names-only", r"^postgresql-[0-9]+-plpgsql-check$"],
                               capture_output=True, text=True).stdout
        majors = sorted(int(m) for m in re.findall(r"^postgresql-(\d+)-plpgsql-check", known, re.M))
        if majors:
            assert named == [str(majors[-1])] and f"apt-get install postgresql-{majors[-1]} " in lines[0]
            return
    assert named == [] and "postgresql-<its major>-plpgsql-check" in lines[0]


def test_without_apt_cache_the_line_names_no_major(tmp_path: Path) -> None:
    stub = tmp_path / "stub"
    stub.mkdir()
    (stub / "apt-cache").symlink_to(shutil.which("false") or "/bin/false")
    proc = _run(_server(tmp_path, 99), f"{stub}:{os.environ['PATH']}")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().endswith("(apt-get install postgresql postgresql-<its major>-plpgsql-check)")


def test_the_pgbouncer_line_names_every_module_whose_tests_skip_without_it() -> None:
    users = {str(p.relative_to(ROOT)) for p in sorted(TESTS.rglob("test_*.py"))
             if re.search(r"^\s*bouncer: Callable", p.read_text(encoding="utf-8"), re.M)}
    lines = [line for line in (ROOT / "tools" / "ensure-pgbouncer.sh").read_text().splitlines()
             if line.lstrip().startswith("echo") and "skip" in line]
    assert users and len(lines) == 2
    for line in lines:
        assert set(re.findall(r"tests/\S+?\.py", line)) == users, line
