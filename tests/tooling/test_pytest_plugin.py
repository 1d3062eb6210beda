"""The pytest11 entry point stays out of the way: importing it loads nothing
but pytest, and without pytest-postgresql (the ``pytest`` extra) a pytest run
works; only a test that asks for a ledger fixture fails, with one line saying
what to install. (tests/tooling/test_release.py checks the same in a virtual
environment that really lacks the extra.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.plugin_project import WITHOUT_THE_EXTRA

from findings_ledger.testing.pytest_plugin import MISSING_EXTRA


def test_importing_the_entry_point_loads_nothing_but_itself() -> None:
    code = (
        "import json, sys\n"
        "import pytest, findings_ledger\n"
        "before = set(sys.modules)\n"
        "import findings_ledger.testing.pytest_plugin\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout) == ["findings_ledger.testing", "findings_ledger.testing.pytest_plugin"]


def test_without_pytest_postgresql_only_a_ledger_fixture_fails(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "pytest_postgresql"
    shadow.mkdir(parents=True)
    # what importing a package that is not installed raises
    (shadow / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'pytest_postgresql'\", name='pytest_postgresql')\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_it.py").write_text(WITHOUT_THE_EXTRA)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(shadow.parent)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "findings_ledger.testing.pytest_plugin", "-p", "no:cacheprovider",
         "-q", "test_it.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "1 passed, 1 error" in out, out
    assert MISSING_EXTRA in out and "pip install 'findings-ledger[pytest]'" in out
    assert "Traceback" not in out and "During handling" not in out, out


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
@pytest.mark.parametrize("env", [{"LEDGER_PG_BINARIES": "{tmp}/no-server"}, {"LEDGER_PGPORT": "abc"}],
                         ids=["no server binaries", "bad port"])
def test_without_a_server_the_run_stops_with_one_line(tmp_path: Path, workers: list[str],
                                                      env: dict[str, str]) -> None:
    (tmp_path / "no-server").mkdir()
    (tmp_path / "test_it.py").write_text("def test_one(ledger_conn):\n    pass\n\n\n"
                                         "def test_two(ledger_dsn):\n    pass\n")
    settings = {k: v.format(tmp=tmp_path) for k, v in env.items()}
    clean = {k: v for k, v in os.environ.items() if k not in ("LEDGER_DSN", "PYTEST_XDIST_WORKER")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *workers, "test_it.py"],
                          cwd=tmp_path, env={**clean, **settings}, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 4, out
    assert "Traceback" not in out and "INTERNALERROR" not in out and "During handling" not in out, out
    lines = [line for line in out.splitlines() if "findings-ledger: no PostgreSQL for the ledger fixtures" in line]
    assert len(lines) == 1, out
    assert next(iter(settings)) in lines[0]  # names the variable
