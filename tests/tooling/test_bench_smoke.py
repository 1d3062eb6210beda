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
from support.bench import run_bench

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import run as bench  # noqa: E402

import real_work  # noqa: E402


def test_quick_benchmark_writes_every_case(ledger_server: dict[str, Any], tmp_path: Path) -> None:
    server = psycopg.conninfo.make_conninfo(**ledger_server)
    prefix = f"ledger_bsmoke_{os.getpid()}"
    assert run_bench(server, tmp_path, prefix, "--quick") == 0
    data = json.loads((tmp_path / "results.json").read_text())
    cases = {r["case"] for r in data["rows"]}
    assert {"merge insert", "app-side path rule", "scaling", "claim", "claim throughput", "replay",
            "migration", "import findings", "bulk recording", "capacity"} <= cases
    capacity = [r for r in data["rows"] if r["case"] == "capacity"]
    assert [r["params"].split(" scopes")[0] for r in capacity] == ["1", "10", "100"]
    assert all(r["merges_per_s"] > 0 and r["prompt_reads_per_s"] > 0 for r in capacity)
    latency = [r for r in data["rows"] if r.get("series") == "latency"]
    expected = len(bench.QUICK.findings) * len(bench.QUICK.path_counts) + len(bench.QUICK.big_paths)
    assert len(latency) == expected
    merge_rows = [r for r in data["rows"] if r["case"] == "merge insert"]
    assert all(r["median_ms"] > 0 and r["baseline_median_ms"] > 0 and r["ratio"] > 0 for r in merge_rows)
    replay = next(r for r in data["rows"] if r["case"] == "replay")
    assert replay["merges_per_s"] > 0
    bulk = {r["params"].split(",")[0] for r in data["rows"] if r["case"] == "bulk recording"}
    assert {"single-row INSERT", "multi-row INSERT", "COPY"} <= bulk
    targets = " ".join(t["target"] for t in data["targets"])
    for words in ("2 KB message", "empty message", "linear in paths", "scale-free", "bulk: multi-row INSERT",
                  "replay", "import of", "import linear", "claim with snapshot", "app-side",
                  "p95 inside the server", "1 -> 2 connections into different scopes"):
        assert words in targets, words
    # the targets these replace are gone
    for words in ("bulk: COPY", "throughput rises from 1 to 2 connections", "more than one that decides nothing",
                  "of every corpus repository <= 10x", "the ledger's time <= git's"):
        assert words not in targets, words
    if real_work.CORPUS.exists():  # what users pay, against baselines of the same run (bench/costs.py)
        for words in ("spf13/viper: backend CPU at the median merge <= 3x the minimal path-rule trigger",
                      "agent-fox: backend CPU at the median merge", "hygiene on minus dry <= 1 ms",
                      "marginal CPU of an anchored finding", "WAL per recorded merge <= 4x",
                      "anchor records aside", "the ledger's CPU <= 2x git log -p",
                      "replay-git pipelined: wall time"):
            assert words in targets, words
        costs = {r["params"].split(":")[0] for r in data["rows"] if r["case"] == "cost per merge"}
        assert {"spf13/viper", "agent-fox"} <= costs
    assert {g["input"] for g in data["growth"]} >= {"findings", "paths", "message bytes", "hunks",
                                                     "batch size (ms per merge)"}
    # the per-function profile of one merge names the trigger's functions, with their SET clauses: the
    # statement trigger ran once, its pre-filter asked about the message, and the merge (which names
    # nothing and touches new files) was not run through _apply_merge
    profile = next(p for label, p in data["profiles"].items() if "2 KB message" in label)
    by_name = {p["function"]: p for p in profile}
    assert by_name["tg_merge__supersede"]["calls"] == 1 and "search_path" in by_name["tg_merge__supersede"]["set"]
    assert by_name["_message_may_match"]["calls"] == 1 and "_apply_merge" not in by_name
    assert "claim, anchor + snapshot" in data["profiles"]
    merge_plan = data["plans"]["merge insert, 100 paths (every statement the triggers run)"]
    assert "finding_path_pkey" in merge_plan  # the nested statements were captured
    assert "finding_scope_finding_key_key" in next(v for k, v in data["plans"].items() if k.startswith("import"))
    report = (tmp_path / "results.md").read_text()
    assert "| merge insert |" in report and "| target |" in report and "Per-function profile" in report
    assert (tmp_path / bench.PLOT).read_text().startswith("<svg")
