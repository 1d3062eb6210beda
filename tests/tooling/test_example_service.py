"""The example project in examples/service/ (a service and its tests using
the ``ledger_conn`` fixture of the findings_ledger pytest plugin) passes
when run on its own, in a separate pytest process with the same
environment (same server: $LEDGER_DSN or the throwaway cluster)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "service"


def test_the_example_service_suite_passes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=EXAMPLE,
        env=os.environ.copy(),
        capture_output=True,
        text=True,
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, f"examples/service failed:\n{proc.stdout}\n{proc.stderr}"
    assert re.fullmatch(r"3 passed in [\d.]+s( \(.*\))?", summary), summary
