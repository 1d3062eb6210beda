"""Running bench/run.py inside a test: its databases (named by ``prefix``) are
dropped afterwards, also when the run fails."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from findings_ledger.testing.cluster import catalog_lock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import run as bench  # noqa: E402


def run_bench(server: str, out: Path, prefix: str, *args: str) -> int:
    """``bench/run.py --dsn server --out out --prefix prefix *args``; its exit status."""
    try:
        return int(bench.main(["--dsn", server, "--out", str(out), "--prefix", prefix, *args]))
    finally:
        with catalog_lock(server), psycopg.connect(server, autocommit=True) as conn:
            names: list[Any] = [r[0] for r in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s", (prefix + "%",))]
            for name in names:
                conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
