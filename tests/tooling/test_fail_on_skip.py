"""LEDGER_FAIL_ON_SKIP=1 (set by .ci/run for make test) makes a skip a failure that names the
skip's reason; without it a skip stays a skip."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def run(tmp_path: Path, fail_on_skip: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_probe.py").write_text(
        "import pytest\n\n"
        "def test_skips():\n    pytest.skip('the corpus is not there')\n\n"
        "@pytest.mark.xfail(reason='known')\ndef test_xfails():\n    assert False\n")
    env = {**os.environ, "PYTHONPATH": str(TESTS), "LEDGER_FAIL_ON_SKIP": "1" if fail_on_skip else ""}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:findings_ledger",
                           "-p", "no:cacheprovider", "-c", os.devnull, "--rootdir", str(tmp_path),
                           str(tmp_path / "test_probe.py"), "-rA"],
                          capture_output=True, text=True, cwd=tmp_path, env=env)


def test_a_skip_fails_naming_its_reason_with_the_variable_set(tmp_path: Path) -> None:
    proc = run(tmp_path, fail_on_skip=True)
    assert proc.returncode == 1, proc.stdout
    assert "1 failed, 1 xfailed" in proc.stdout
    assert "skipped with LEDGER_FAIL_ON_SKIP=1" in proc.stdout and "the corpus is not there" in proc.stdout


def test_a_skip_stays_a_skip_without_it(tmp_path: Path) -> None:
    proc = run(tmp_path, fail_on_skip=False)
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped, 1 xfailed" in proc.stdout
