"""The benchmark harness runs end to end at its --quick size (CI's smoke
check). This asserts that every case produced figures and a report, never
how fast anything was: speed targets live in `make bench`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import run as bench  # noqa: E402


def test_quick_benchmark_writes_every_case(ledger_server: dict[str, Any], tmp_path: Path) -> None:
    server = psycopg.conninfo.make_conninfo(**ledger_server)
    prefix = f"ledger_bsmoke_{os.getpid()}"
    try:
        assert bench.main(["--quick", "--dsn", server, "--out", str(tmp_path), "--prefix", prefix]) == 0
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s",
                                                 (prefix + "%",))]
            for name in names:
                conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))
    data = json.loads((tmp_path / "results.json").read_text())
    cases = {r["case"] for r in data["rows"]}
    assert {"merge insert", "app-side path rule", "scaling", "claim", "claim throughput", "replay",
            "migration"} <= cases
    merge_rows = [r for r in data["rows"] if r["case"] == "merge insert"]
    assert len(merge_rows) == len(bench.QUICK.findings) * len(bench.QUICK.path_counts)
    assert all(r["median_ms"] > 0 and r["baseline_median_ms"] > 0 and r["ratio"] > 0 for r in merge_rows)
    replay = next(r for r in data["rows"] if r["case"] == "replay")
    assert replay["merges_per_s"] > 0
    assert {t["target"].split(" ")[0] for t in data["targets"]} >= {"trigger", "scale-free:", "replay", "claim"}
    merge_plan = data["plans"]["merge insert, 100 paths (every statement the triggers run)"]
    assert "finding_active_paths_idx" in merge_plan  # the nested statements were captured
    report = (tmp_path / "results.md").read_text()
    assert "| merge insert |" in report and "| target |" in report
