"""A verb whose reader goes away (``findings-ledger export s | head``) stops
quietly as Unix tools do: no ``error: [Errno 32] Broken pipe``, no
traceback, the status of a process ended by SIGPIPE (141)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

CLI = Path(sys.executable).with_name("findings-ledger")


@pytest.mark.parametrize("verb", [["export", "s"], ["export", "s", "--include-retired"]])
def test_a_closed_pipe_ends_the_verb_quietly(ledger_dsn: str, verb: list[str]) -> None:
    with psycopg.connect(ledger_dsn) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, title, paths, finding_key) "
                     "SELECT 's', 'finding number ' || i || ' of a long list', ARRAY['src/f' || i || '.py'], 'k' || i "
                     "FROM generate_series(1, 500) AS i")
    command = f"set -o pipefail; {shlex.quote(str(CLI))} {' '.join(verb)} | head -1"
    proc = subprocess.run(["bash", "-c", command], env={**os.environ, "LEDGER_DSN": ledger_dsn, "COLUMNS": "200"},
                          capture_output=True, text=True, timeout=120)
    assert proc.stderr == ""
    assert proc.returncode == 141
    assert len(proc.stdout.splitlines()) == 1
