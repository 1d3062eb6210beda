"""findings-ledger benchmark (``make bench``; ``--quick`` for the CI smoke run).

Method: psycopg 3 and ``time.perf_counter_ns`` around the one statement under
test, measured client-side over a Unix socket, after a warm-up. Every figure
is printed next to a baseline measured in the same run on the same data, as a
ratio, because shared machines are noisy. State-changing samples run in a
transaction that is rolled back after the clock stops, so every sample sees
the same ledger. Results go to ``bench/out/results.json``,
``bench/out/results.md`` (medians and 95th percentiles, in milliseconds) and
``bench/out/merge-latency.svg`` (the plot docs/performance.md shows).

Besides latencies it records, for one merge, the per-function profile
(``track_functions = all``: calls, total and self time of every ledger
function), which hot-path functions carry ``SET`` clauses or are SQL
functions PostgreSQL plans on every call, and, when the server preloads
pg_stat_statements, how often each statement the triggers run is planned
(``track = all``, ``track_planning``).

Why a script and not pgbench or pytest-benchmark: the cases need data loaded
in stages (10k -> 100k -> 1M findings), an application-side baseline written
in Python, concurrent claimers on separate connections and the migration
itself, which neither tool drives; a plain script keeps all of that in one
readable place. Tests never time anything; this script does.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from findings_ledger import api, gitlog
from findings_ledger.testing import cluster

import capacity  # bench/capacity.py, beside this script
import real_work  # bench/real_work.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
DB_PREFIX = "ledger_bench"
MESSAGE = ("Refactor the loader and its tests. " * 60)[:2048]  # 2 KB commit message
PLOT = "merge-latency.svg"


def message_of(size: int) -> str:
    """A commit message of ``size`` characters that names no finding."""
    return ("Refactor the loader and its tests. " * (size // 35 + 1))[:size]


@dataclass
class Sizes:
    findings: list[int]
    path_counts: list[int]
    samples: int
    samples_1000: int
    app_samples: int
    claim_tasks: int
    claim_seconds: float
    replay_commits: int
    replay_findings: int
    populated_rows: int
    big_paths: list[int]  # path counts measured at the largest ledger only (few samples)
    big_path_samples: int
    message_sizes: list[int]
    growth_samples: int
    bulk_merges: int  # multi-row INSERT and COPY of this many merges
    bulk_single: int  # single-row INSERTs (the slow way: a rate from fewer rows)
    batch_sizes: list[int]
    batch_merges: int
    imports: list[int]  # findings imported in one INSERT ... SELECT into a fresh database
    hunk_counts: list[int]  # hunks of one merge over a file with anchored findings (largest ledger)


FULL = Sizes([10_000, 100_000, 1_000_000], [1, 10, 100, 1000], 200, 40, 5, 60_000, 5.0, 10_000, 10_000, 100_000,
             [10_000, 100_000], 3, [0, 256, 2048, 16384, 65536], 40, 10_000, 1_000, [1, 10, 100, 1000], 1_000,
             [10_000, 100_000], [1, 10, 100, 1000])
QUICK = Sizes([1_000, 5_000], [1, 10, 100], 15, 5, 2, 3_000, 0.5, 300, 500, 2_000,
              [1000], 2, [0, 2048], 5, 200, 50, [1, 50], 100, [500, 2_000], [1, 10])


@dataclass
class Report:
    rows: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)
    plans: dict[str, str] = field(default_factory=dict)
    growth: list[dict[str, Any]] = field(default_factory=list)
    profiles: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    statements: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, case: str, params: str, samples_ms: list[float], baseline: str | None = None,
            baseline_ms: list[float] | None = None, **extra: Any) -> dict[str, Any]:
        row: dict[str, Any] = {
            "case": case,
            "params": params,
            "n": len(samples_ms),
            "median_ms": round(statistics.median(samples_ms), 4),
            "p95_ms": round(p95(samples_ms), 4),
        }
        if baseline and baseline_ms:
            row["baseline"] = baseline
            row["baseline_median_ms"] = round(statistics.median(baseline_ms), 4)
            row["baseline_p95_ms"] = round(p95(baseline_ms), 4)
            row["ratio"] = round(statistics.median(samples_ms) / statistics.median(baseline_ms), 3)
        row.update(extra)
        self.rows.append(row)
        print(f"  {case:<28} {params:<34} median {row['median_ms']:>9.3f} ms  p95 {row['p95_ms']:>9.3f} ms"
              + (f"  x{row['ratio']} vs {baseline}" if "ratio" in row else ""), flush=True)
        return row

    def other(self, case: str, params: str, **figures: Any) -> dict[str, Any]:
        row = {"case": case, "params": params, **figures}
        self.rows.append(row)
        print(f"  {case:<28} {params:<34} " + ", ".join(f"{k} {v}" for k, v in figures.items()), flush=True)
        return row

    def grows(self, input_: str, value: Any, row: dict[str, Any]) -> None:
        """One line of the growth table: how a merge's cost grows with one input."""
        self.growth.append({"input": input_, "value": value, "median_ms": row.get("median_ms"),
                            "baseline_median_ms": row.get("baseline_median_ms"), "ratio": row.get("ratio"),
                            "params": row.get("params")})

    def target(self, name: str, value: float, limit: float, holds: bool, why: str = "") -> None:
        self.targets.append({"target": name, "value": round(value, 3), "limit": limit, "holds": holds, "note": why})
        print(f"  target {name}: {value:.3f} (limit {limit}) -> {'HOLDS' if holds else 'MISSED'} {why}", flush=True)


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def sha_of(i: int) -> str:
    """A commit sha for counter ``i``: the SHA-1 of its decimal form, as
    uniformly spread as git's. (Zero-padded counters share 30 leading
    digits, which no real history does; the redelivery check then probes
    every prefix length for an abbreviation, 36 lookups per merge.)"""
    return hashlib.sha1(str(i).encode()).hexdigest()


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - t0) / 1e6


# --------------------------------------------------------------------------- data


def fresh_database(server_dsn: str, name: str) -> str:
    with cluster.catalog_lock(server_dsn), psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    params = psycopg.conninfo.conninfo_to_dict(server_dsn)
    params["dbname"] = name
    return psycopg.conninfo.make_conninfo(**params)


_TEMPLATES: dict[str, str] = {}  # server DSN -> the database this run migrated once


def migrated_database(server_dsn: str, name: str) -> str:
    """A fresh database at head: a clone (``CREATE DATABASE ... TEMPLATE``) of
    one database this run migrated, which has exactly the schema migrating
    again would give. The migration case migrates its own databases."""
    if server_dsn not in _TEMPLATES:
        template = f"{DB_PREFIX}_template"
        api.migrate(fresh_database(server_dsn, template))
        _TEMPLATES[server_dsn] = template
    with cluster.catalog_lock(server_dsn), psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(name),
                                                                    sql.Identifier(_TEMPLATES[server_dsn])))
    params = psycopg.conninfo.conninfo_to_dict(server_dsn)
    params["dbname"] = name
    return psycopg.conninfo.make_conninfo(**params)


def drop_template(server_dsn: str) -> None:
    template = _TEMPLATES.pop(server_dsn, None)
    if template:
        with cluster.catalog_lock(server_dsn), psycopg.connect(server_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(template)))


GIN_INDEXES = ("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'ledger' AND tablename = 'finding' "
               "AND indexdef LIKE '%USING gin%' ORDER BY indexname")


def load_findings(conn: psycopg.Connection[Any], start: int, stop: int) -> None:
    """Findings start+1..stop: a tenth in scope 'bench-0', the rest spread over
    'bench-1'..'bench-9'; two paths each under src/ and a directory under docs/.
    Loaded with triggers off (session_replication_role = replica) because the
    values are generated already normalised; their paths go into
    ledger.finding_path in the same statement, as the insert trigger would. The two GIN indexes are dropped
    for the load and built again from their own definitions (pg_get_indexdef)
    afterwards: building is about twice as fast as maintaining them row by
    row, and their expression (ledger._evidence_keys) costs about 0.2 ms per
    finding either way, which would make 1,000,000 findings a ten-minute
    load. The indexes are the same; only their page layout is the tidier
    one of a fresh build."""
    gin = conn.execute(GIN_INDEXES).fetchall()
    with conn.transaction():
        # the scope rows first, as the triggers would have created them
        conn.execute("INSERT INTO ledger.scope (scope) SELECT 'bench-' || g FROM generate_series(0, 9) AS g "
                     "ON CONFLICT DO NOTHING")
        for name, _ in gin:
            conn.execute(sql.SQL("DROP INDEX ledger.{}").format(sql.Identifier(name)))
        conn.execute("SET LOCAL session_replication_role = replica")
        # the path side table as the trigger _300_paths_insert (off here) fills it (when the schema has it)
        side = conn.execute("SELECT to_regclass('ledger.finding_path') IS NOT NULL").fetchone()
        conn.execute(
            """
            WITH ins AS (
                INSERT INTO ledger.finding (scope, title, kind, severity, paths, description)
                SELECT 'bench-' || (g %% 10), 'finding ' || g, 'drift', 'medium',
                       ARRAY['src/pkg' || (g %% 211) || '/mod' || (g %% 97) || '/file' || g || '.py',
                             'docs/section' || (g %% 1013) || '/'],
                       'Generated finding ' || g
                  FROM generate_series(%s::bigint + 1, %s::bigint) AS g
                RETURNING id, scope, paths
            )
            """ + ("""
            INSERT INTO ledger.finding_path (scope, path, finding_id)
            SELECT DISTINCT ins.scope, p.path, ins.id FROM ins, unnest(ins.paths) AS p(path)
            """ if side and side[0] else "SELECT count(*) FROM ins"),
            (start, stop),
        )
        conn.execute("SET LOCAL session_replication_role = origin")
        conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
        for _, definition in gin:
            conn.execute(definition)
    conn.execute("ANALYZE ledger.finding")
    if side and side[0]:
        conn.execute("ANALYZE ledger.finding_path")


def touched(n: int, salt: int) -> list[str]:
    """n touched paths under existing directories, with new file names (so the
    merge supersedes nothing and the figure is the lookup cost alone)."""
    return [f"src/pkg{(salt + i) % 211}/mod{(salt * 7 + i) % 97}/new_{salt}_{i}.py" for i in range(n)]


def nested_plans(conn: psycopg.Connection[Any], stmt: str, params: Any, keep: Callable[[str], bool] | None = None,
                 analyze: bool = True) -> str:
    """EXPLAIN (ANALYZE, BUFFERS) of ``stmt`` and of every statement the
    functions and triggers it fires run, via auto_explain with
    log_nested_statements, its LOG lines sent to this client (only those
    ``keep`` accepts, when given). Rolled back. Needs the right to LOAD
    auto_explain (superuser on the throwaway cluster); otherwise says so."""
    lines: list[str] = []

    def on_notice(diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary
        if text and "plan:" in text and (keep is None or keep(text)):
            lines.append(text)

    try:
        conn.execute("LOAD 'auto_explain'")
    except psycopg.Error as exc:
        return f"auto_explain unavailable here: {exc}"
    conn.add_notice_handler(on_notice)
    try:
        with conn.transaction(force_rollback=True):
            for setting in ("auto_explain.log_min_duration = 0",
                            f"auto_explain.log_analyze = {'on' if analyze else 'off'}",
                            f"auto_explain.log_buffers = {'on' if analyze else 'off'}",
                            "auto_explain.log_nested_statements = on",
                            f"auto_explain.log_timing = {'on' if analyze else 'off'}", "client_min_messages = log"):
                conn.execute(f"SET LOCAL {setting}")
            conn.execute(stmt, params)
    finally:
        conn.remove_notice_handler(on_notice)
    return "\n\n".join(lines)


# --------------------------------------------------------------------------- cases

INSERT_MERGE = "INSERT INTO {table} (scope, commit_sha, paths, message, hunks) VALUES (%s, %s, %s, %s, %s)"


def sample_insert(conn: psycopg.Connection[Any], table: str, paths: list[str], sha: str,
                  message: str = MESSAGE, hunks: Jsonb | None = None) -> float:
    stmt = INSERT_MERGE.format(table=table)
    with conn.transaction(force_rollback=True):
        return timed(lambda: conn.execute(stmt, ("bench-0", sha, paths, message, hunks)))


def paired(conn: psycopg.Connection[Any], count: int, paths_of: Callable[[int], list[str]], salt: list[int],
           message: str = MESSAGE, warm: int | None = None,
           hunks: Jsonb | None = None) -> tuple[list[float], list[float]]:
    """``count`` merge inserts into ledger.merge and into the bare table,
    alternated sample by sample (so drift in machine load hits both alike),
    after ``warm`` unrecorded pairs; ``hunks`` for every one when given."""
    warm = max(3, count // 10) if warm is None else warm
    trig: list[float] = []
    bare: list[float] = []
    for i in range(warm + count):
        salt[0] += 1
        paths = paths_of(salt[0])
        t = sample_insert(conn, "ledger.merge", paths, sha_of(salt[0]), message, hunks)
        b = sample_insert(conn, "bench_bare.merge", paths, sha_of(salt[0]), message, hunks)
        if i >= warm:
            trig.append(t)
            bare.append(b)
    return trig, bare


def app_side_merge(conn: psycopg.Connection[Any], paths: list[str], sha: str) -> float:
    """The straightforward application-side implementation of the path rule:
    insert the merge, select the scope's active findings, match in Python,
    update row by row."""

    def run() -> None:
        conn.execute(INSERT_MERGE.format(table="bench_bare.merge"), ("bench-0", sha, paths, MESSAGE, None))
        rows = conn.execute(
            "SELECT id, paths FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL", ("bench-0",)
        ).fetchall()
        touched_set = set(paths)
        for fid, fpaths in rows:
            hit = None
            for fp in fpaths:
                if fp in touched_set or (fp.endswith("/") and any(t.startswith(fp) for t in paths)):
                    hit = fp
                    break
            if hit is not None:
                conn.execute(
                    "UPDATE ledger.finding SET superseded_at = now(), superseded_by = %s WHERE id = %s", (sha, fid)
                )

    with conn.transaction(force_rollback=True):
        return timed(run)


def bench_merges(conn: psycopg.Connection[Any], sizes: Sizes, rep: Report) -> dict[tuple[int, int], dict[str, Any]]:
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_bare")
    conn.execute("CREATE TABLE IF NOT EXISTS bench_bare.merge (LIKE ledger.merge INCLUDING ALL)")
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    loaded = 0
    salt = [0]
    largest = sizes.findings[-1]
    for n in sizes.findings:
        print(f"loading findings {loaded} -> {n}", flush=True)
        t0 = time.perf_counter()
        load_findings(conn, loaded, n)
        print(f"  loaded in {time.perf_counter() - t0:.1f} s", flush=True)
        loaded = n
        for pc in sizes.path_counts:
            count = sizes.samples_1000 if pc >= 1000 else sizes.samples
            trig, bare = paired(conn, count, lambda s, pc=pc: touched(pc, s), salt)
            row = rep.add("merge insert", f"{n} findings, {pc} paths", trig, "bare insert", bare,
                          findings=n, paths=pc, message_bytes=len(MESSAGE), series="latency")
            rows[(n, pc)] = row
            if pc == 100:
                rep.grows("findings", n, row)
            if pc == 100 and n == largest:
                rep.target(f"merge, 2 KB message and 100 paths, at {n} findings <= 4x bare insert", row["ratio"], 4.0,
                           row["ratio"] <= 4.0)
        if n == largest:
            bench_largest_ledger(conn, sizes, rep, rows, salt)
    first, last = sizes.findings[0], sizes.findings[-1]
    for pc in sizes.path_counts:
        ratio = rows[(last, pc)]["median_ms"] / rows[(first, pc)]["median_ms"]
        rep.other("scaling", f"{pc} paths: {last} vs {first} findings", ratio=round(ratio, 3))
        if pc == 100:
            rep.target(f"scale-free: latency at {last} within 1.3x of {first} (100 paths)", ratio, 1.3, ratio <= 1.3)
    rep.plans["merge insert, 100 paths (every statement the triggers run)"] = nested_plans(
        conn, "INSERT INTO ledger.merge (scope, commit_sha, paths, message) VALUES ('bench-0', 'ffff0000', %s, %s)",
        (touched(100, 999_999), MESSAGE))
    return rows


def bench_largest_ledger(conn: psycopg.Connection[Any], sizes: Sizes, rep: Report,
                         rows: dict[tuple[int, int], dict[str, Any]], salt: list[int]) -> None:
    """At the largest ledger: the growth with paths (up to 100,000), message
    size and hunks, the empty message, the app-side baseline, the profile
    and the plan-caching checks of one merge."""
    n = sizes.findings[-1]
    for pc in sizes.path_counts:
        rep.grows("paths", pc, rows[(n, pc)])
    for pc in sizes.big_paths:
        count = sizes.big_path_samples if pc <= 10_000 else 1  # a 100,000-path merge takes seconds
        trig, bare = paired(conn, count, lambda s, pc=pc: touched(pc, s), salt, warm=1 if pc <= 10_000 else 0)
        rows[(n, pc)] = rep.add("merge insert", f"{n} findings, {pc} paths", trig, "bare insert", bare,
                                findings=n, paths=pc, message_bytes=len(MESSAGE), series="latency")
        rep.grows("paths", pc, rows[(n, pc)])
    base_pc = 1000 if 1000 in sizes.path_counts else max(sizes.path_counts)
    top_pc = max(pc for (m, pc) in rows if m == n)
    if top_pc > base_pc:
        growth = rows[(n, top_pc)]["ratio"] / rows[(n, base_pc)]["ratio"]
        rep.target(f"linear in paths: ratio at {top_pc} paths within 1.3x of the ratio at {base_pc}", growth, 1.3,
                   growth <= 1.3)
        secs = rows[(n, top_pc)]["median_ms"] / 1000
        rep.target(f"a {top_pc}-path merge in under 2 s", secs, 2.0, secs < 2.0)
    for size in sizes.message_sizes:
        trig, bare = paired(conn, sizes.growth_samples, lambda s: touched(100, s), salt, message=message_of(size))
        row = rep.add("merge insert", f"{n} findings, 100 paths, {size} B message", trig, "bare insert", bare,
                      findings=n, paths=100, message_bytes=size)
        rep.grows("message bytes", size, row)
        if size == 0:
            rep.target(f"merge, empty message and 100 paths, at {n} findings <= 2x bare insert", row["ratio"], 2.0,
                       row["ratio"] <= 2.0)
    bench_hunks(conn, sizes, rep, salt)
    app: list[float] = []
    trig = []
    for _ in range(sizes.app_samples + 1):
        salt[0] += 1
        paths = touched(100, salt[0])
        app.append(app_side_merge(conn, paths, sha_of(salt[0])))
        trig.append(sample_insert(conn, "ledger.merge", paths, sha_of(salt[0])))
    row = rep.add("app-side path rule", f"{n} findings ({n // 10} in scope), 100 paths", app[1:],
                  "ledger trigger", trig[1:], findings=n, paths=100)
    rep.target(f"ledger >= 100x faster than app-side at {n // 10} findings in scope", row["ratio"], 100.0,
               row["ratio"] >= 100.0)
    profile_merge(conn, rep, f"{n} findings, 100 paths, 2 KB message", touched(100, 888_888), MESSAGE)
    profile_merge(conn, rep, f"{n} findings, 100 paths, empty message", touched(100, 888_889), "")
    statement_plans(conn, rep, f"{n} findings, 100 paths, 2 KB message", salt)


#: findings anchored to lines of the hunks file, one every 10 lines from line 5
HUNK_ANCHORS = 100
HUNK_FILE = "src/hunks/anchored.py"


def hunks_of(count: int) -> list[list[int]]:
    """``count`` one-line modifications (``git diff -U0``: old start, old
    length, new start, new length) below every anchor: each is compared with
    every anchor, none overlaps one or moves it."""
    first = 10 * HUNK_ANCHORS + 100
    return [[first + 3 * k, 1, first + 3 * k, 1] for k in range(count)]


def bench_hunks(conn: psycopg.Connection[Any], sizes: Sizes, rep: Report, salt: list[int]) -> None:
    """How a merge's cost grows with its hunks: a merge touching one file
    that HUNK_ANCHORS active findings are anchored to (lines 5, 15, ...),
    with 1 to 1,000 one-line hunks below every anchor (nothing retires,
    nothing moves: each anchor is audited as kept), against the same INSERT,
    hunks included, into the bare table. The findings are added with the
    ledger's own insert (anchors parsed by its triggers) and removed after."""
    has = conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'ledger' "
                       "AND table_name = 'merge' AND column_name = 'hunks'").fetchone()
    if not has or not has[0]:
        rep.growth.append({"input": "hunks", "value": None, "median_ms": None, "baseline_median_ms": None,
                           "ratio": None, "params": "not measured: ledger.merge has no hunks column"})
        rep.notes.append("hunks: not measured, ledger.merge has no hunks column in this schema")
        print("  hunks: ledger.merge has no hunks column, not measured", flush=True)
        return
    n = sizes.findings[-1]
    with conn.transaction():
        ids = [r[0] for r in conn.execute(
            "INSERT INTO ledger.finding (scope, title, kind, severity, paths) "
            "SELECT 'bench-0', 'anchored finding ' || g, 'drift', 'medium', ARRAY[%s || ':' || (10 * g + 5)] "
            "  FROM generate_series(0, %s - 1) AS g RETURNING id", (HUNK_FILE, HUNK_ANCHORS))]
    try:
        for count in sizes.hunk_counts:
            trig, bare = paired(conn, sizes.growth_samples, lambda s: [HUNK_FILE], salt,
                                message="Edit the tail of the file", warm=3,
                                hunks=Jsonb({HUNK_FILE: hunks_of(count)}))
            row = rep.add("merge insert", f"{n} findings, 1 path, {HUNK_ANCHORS} anchors, {count} hunks", trig,
                          "bare insert", bare, findings=n, paths=1, anchors=HUNK_ANCHORS, hunks=count)
            rep.grows("hunks", count, row)
    finally:
        with conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")  # findings are never deleted otherwise
            conn.execute("DELETE FROM ledger.finding_path WHERE finding_id = ANY (%s)", (ids,))
            conn.execute("DELETE FROM ledger.finding WHERE id = ANY (%s)", (ids,))


FUNCTION_STATS = """
SELECT s.funcname, l.lanname, coalesce(array_to_string(p.proconfig, ', '), ''),
       s.calls, s.total_time, s.self_time
  FROM pg_stat_xact_user_functions s
  JOIN pg_proc p ON p.oid = s.funcid
  JOIN pg_language l ON l.oid = p.prolang
 WHERE s.schemaname = 'ledger'
"""


def function_profile(conn: psycopg.Connection[Any], run: Callable[[], Any]) -> list[dict[str, Any]]:
    """What ``run`` spent in each ledger function (track_functions = all):
    the difference of pg_stat_xact_user_functions before and after it, in
    one transaction that is rolled back. (The view also holds calls of
    earlier transactions whose statistics were not flushed yet, hence the
    difference.) A SQL function listed here was not inlined."""
    with conn.transaction(force_rollback=True):
        conn.execute("SET LOCAL track_functions = 'all'")
        before = {r[0]: r for r in conn.execute(FUNCTION_STATS)}
        run()
        after = conn.execute(FUNCTION_STATS).fetchall()
    rows = []
    for name, lang, cfg, calls, total, self_ in after:
        b = before.get(name)
        d_calls = calls - (b[3] if b else 0)
        if d_calls > 0:
            rows.append({"function": name, "language": lang, "set": cfg, "calls": d_calls,
                         "total_ms": round(total - (b[4] if b else 0), 3),
                         "self_ms": round(self_ - (b[5] if b else 0), 3)})
    return sorted(rows, key=lambda r: (-r["self_ms"], r["function"]))


def profile_merge(conn: psycopg.Connection[Any], rep: Report, label: str, paths: list[str], message: str) -> None:
    """Per-function profile of one merge (the second of two, so caches are warm)."""
    for k in range(2):
        rows = function_profile(conn, lambda k=k: conn.execute(
            INSERT_MERGE.format(table="ledger.merge"), ("bench-0", f"{0xfeed0000 + k:x}", paths, message, None)))
    rep.profiles[label] = rows
    top = ", ".join(f"{r['function']} {r['self_ms']}" for r in rows[:4])
    print(f"  profile ({label}): {len(rows)} functions; most self time: {top}", flush=True)


def statement_plans(conn: psycopg.Connection[Any], rep: Report, label: str, salt: list[int], merges: int = 10) -> None:
    """How often each statement a merge runs is planned, from
    pg_stat_statements (track = all, track_planning = on) over ``merges``
    rolled-back merges: a statement planned on every call is a SQL
    function's body (PostgreSQL before 18 keeps no plan of a SQL function
    between calls) or a custom plan. Needs pg_stat_statements in
    shared_preload_libraries (the throwaway cluster preloads it when the
    server has it); otherwise says so."""
    preload = conn.execute("SHOW shared_preload_libraries").fetchone()
    if not preload or "pg_stat_statements" not in preload[0]:
        rep.statements[label] = {"available": False,
                                 "why": "pg_stat_statements is not in shared_preload_libraries on this server"}
        print("  statement plans: pg_stat_statements not preloaded, not measured", flush=True)
        return
    conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    conn.execute("SET pg_stat_statements.track = 'all'")
    conn.execute("SET pg_stat_statements.track_planning = on")
    try:
        for _ in range(2):
            salt[0] += 1
            sample_insert(conn, "ledger.merge", touched(100, salt[0]), sha_of(salt[0]))
        conn.execute("SELECT pg_stat_statements_reset()")
        for _ in range(merges):
            salt[0] += 1
            sample_insert(conn, "ledger.merge", touched(100, salt[0]), sha_of(salt[0]))
        conn.execute("SET pg_stat_statements.track = 'none'")
        found = conn.execute(
            """
            SELECT calls, plans, round((total_plan_time / %s)::numeric, 4), round((total_exec_time / %s)::numeric, 4),
                   toplevel, regexp_replace(left(query, 2000), '\\s+', ' ', 'g')
              FROM pg_stat_statements
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND query !~* 'pg_stat_statements|^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET )'
             ORDER BY total_plan_time + total_exec_time DESC
            """,
            (merges, merges),
        ).fetchall()
    finally:
        conn.execute("RESET pg_stat_statements.track")
        conn.execute("RESET pg_stat_statements.track_planning")
    stmts = [{"calls_per_merge": c / merges, "plans_per_merge": p / merges, "plan_ms_per_merge": float(pt),
              "exec_ms_per_merge": float(et), "toplevel": top, "query": q} for c, p, pt, et, top, q in found]
    nested = [s for s in stmts if not s["toplevel"]]
    plan_ms = sum(s["plan_ms_per_merge"] for s in nested)
    replanned = [s for s in nested if s["calls_per_merge"] > 0 and s["plans_per_merge"] >= s["calls_per_merge"]]
    rep.statements[label] = {"available": True, "merges": merges, "statements": stmts,
                             "nested_plan_ms_per_merge": round(plan_ms, 4),
                             "replanned_statements": len(replanned)}
    print(f"  statement plans ({label}): {len(nested)} nested statements, {len(replanned)} planned on every call, "
          f"{plan_ms:.3f} ms planning per merge", flush=True)


# ---------------------------------------------------------------------------- bulk recording and replay


def history(n: int, offset: int = 0) -> list[gitlog.GitMerge]:
    """n commits of five paths each over the files of load_findings' first
    50,000 findings (some supersede), with short messages."""
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    return [
        gitlog.GitMerge(
            sha=sha_of(offset + i + 1),
            parents=(sha_of(offset + i),),
            committed_at=start + timedelta(seconds=i),
            message=f"Change {i}\n\nTouches a few files.",
            paths=tuple(f"src/pkg{(i * 3 + k) % 211}/mod{(i + k) % 97}/file{(i * 13 + k) % 50_000}.py"
                        for k in range(5)),
        )
        for i in range(n)
    ]


MERGE_COLUMNS = "scope, commit_sha, paths, message, merged_at"


def merge_rows(merges: list[gitlog.GitMerge]) -> list[tuple[Any, ...]]:
    return [("bench-0", m.sha, list(m.paths), m.message, m.committed_at) for m in merges]


def record_single(conn: psycopg.Connection[Any], table: str, rows: list[tuple[Any, ...]]) -> None:
    stmt = f"INSERT INTO {table} ({MERGE_COLUMNS}) VALUES (%s, %s, %s, %s, %s)"
    for r in rows:
        conn.execute(stmt, r)


def record_multirow(conn: psycopg.Connection[Any], table: str, rows: list[tuple[Any, ...]], batch: int) -> None:
    for i in range(0, len(rows), batch):
        chunk = rows[i:i + batch]
        conn.execute(f"INSERT INTO {table} ({MERGE_COLUMNS}) VALUES "
                     + ", ".join(["(%s, %s, %s, %s, %s)"] * len(chunk)), [v for r in chunk for v in r])


def record_copy(conn: psycopg.Connection[Any], table: str, rows: list[tuple[Any, ...]]) -> None:
    with conn.cursor() as cur, cur.copy(f"COPY {table} ({MERGE_COLUMNS}) FROM STDIN") as copy:
        for r in rows:
            copy.write_row(r)


def rolled_back(conn: psycopg.Connection[Any], fn: Callable[[], Any]) -> float:
    with conn.transaction(force_rollback=True):
        return timed(fn)


def bench_bulk(conn: psycopg.Connection[Any], sizes: Sizes, rep: Report) -> None:
    """Recording many merges at once: single-row INSERTs, multi-row INSERTs
    (1,000 rows per statement) and one COPY, each into ledger.merge and into
    the bare table, each in a transaction rolled back afterwards (so every
    way starts from the same ledger), the two sides alternated. Then the
    batch size of a multi-row INSERT."""
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_bare")
    conn.execute("CREATE TABLE IF NOT EXISTS bench_bare.merge (LIKE ledger.merge INCLUDING ALL)")
    rows = merge_rows(history(sizes.bulk_merges, offset=10_000_000))
    single = rows[:sizes.bulk_single]
    ways: list[tuple[str, list[tuple[Any, ...]], Callable[[str, list[tuple[Any, ...]]], None]]] = [
        ("single-row INSERT", single, lambda t, r: record_single(conn, t, r)),
        ("multi-row INSERT", rows, lambda t, r: record_multirow(conn, t, r, 1000)),
        ("COPY", rows, lambda t, r: record_copy(conn, t, r)),
    ]
    for name, batch, write in ways:
        b = rolled_back(conn, lambda: write("bench_bare.merge", batch))
        t = rolled_back(conn, lambda: write("ledger.merge", batch))
        row = rep.add("bulk recording", f"{name}, {len(batch)} merges", [t], "same into the bare table", [b],
                      merges=len(batch), merges_per_s=round(len(batch) / (t / 1000), 1),
                      bare_merges_per_s=round(len(batch) / (b / 1000), 1))
        if name == "multi-row INSERT":
            rep.target(f"bulk: {name} of {len(batch)} merges <= 10x the bare table", row["ratio"], 10.0,
                       row["ratio"] <= 10.0)
    batch_rows = rows[:sizes.batch_merges]
    for size in sizes.batch_sizes:
        b = rolled_back(conn, lambda: record_multirow(conn, "bench_bare.merge", batch_rows, size))
        t = rolled_back(conn, lambda: record_multirow(conn, "ledger.merge", batch_rows, size))
        row = rep.add("bulk recording", f"multi-row INSERT, {size} rows per statement, {len(batch_rows)} merges",
                      [t / len(batch_rows)], "same into the bare table", [b / len(batch_rows)], batch=size,
                      merges_per_s=round(len(batch_rows) / (t / 1000), 1))
        rep.grows("batch size (ms per merge)", size, row)


def bench_replay(server_dsn: str, sizes: Sizes, rep: Report) -> None:
    dsn = migrated_database(server_dsn, f"{DB_PREFIX}_replay")
    with psycopg.connect(dsn, autocommit=True) as conn:
        load_findings(conn, 0, sizes.replay_findings)
        bench_bulk(conn, sizes, rep)
        merges = history(sizes.replay_commits)
        t0 = time.perf_counter()
        results = gitlog.replay(conn, "bench-0", merges)
        elapsed = time.perf_counter() - t0
    rate = len(merges) / elapsed
    superseded = sum(len(r.superseded) for r in results)
    rep.other("replay", f"{len(merges)} commits, {sizes.replay_findings} findings", merges_per_s=round(rate, 1),
              seconds=round(elapsed, 3), superseded=superseded)
    rep.target("replay >= 2000 merges/s", rate, 2000.0, rate >= 2000.0)
    bench_real_replay(server_dsn, rep)


def bench_real_replay(server_dsn: str, rep: Report) -> None:
    """This repository's own first-parent history: the time git takes to
    produce it against the time the ledger takes to record it."""
    if not (ROOT / ".git").exists():
        rep.notes.append("real replay: not a git checkout, not measured")
        return
    t0 = time.perf_counter()
    try:
        merges = list(gitlog.read_merges(ROOT))
    except (OSError, ValueError, subprocess.CalledProcessError) as exc:
        rep.notes.append(f"real replay: git log failed ({exc}), not measured")
        return
    git_s = time.perf_counter() - t0
    dsn = migrated_database(server_dsn, f"{DB_PREFIX}_real_replay")
    with psycopg.connect(dsn, autocommit=True) as conn:
        t0 = time.perf_counter()
        gitlog.replay(conn, "self", merges)
        ledger_s = time.perf_counter() - t0
    rep.other("real replay", f"this repository, {len(merges)} first-parent commits", git_s=round(git_s, 3),
              ledger_s=round(ledger_s, 3), merges_per_s=round(len(merges) / ledger_s, 1),
              limited_by="git" if git_s >= ledger_s else "ledger")


# ---------------------------------------------------------------------------- import

IMPORT = """
INSERT INTO {table} (scope, finding_key, kind, severity, title, description, paths)
SELECT 'import', 'F-' || g, 'drift', 'medium', 'Finding ' || g || ' about the loader', 'Imported finding ' || g,
       ARRAY['src/pkg' || (g % 211) || '/mod' || (g % 97) || '/file' || g || '.py', 'docs/section' || (g % 1013) || '/']
  FROM generate_series(1, {n}) AS g
"""


def bench_import(server_dsn: str, sizes: Sizes, rep: Report) -> None:
    """One INSERT ... SELECT of N findings (one scope, keys, two paths) into
    a freshly migrated database, no ANALYZE, against the same into an
    identical table without triggers (LIKE ledger.finding INCLUDING ALL:
    the same indexes, so the same index expressions), for each N. Linear
    when the cost per finding stays flat as N grows."""
    per_row: dict[int, float] = {}
    for n in sizes.imports:
        dsn = migrated_database(server_dsn, f"{DB_PREFIX}_import")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA bench_bare")
            conn.execute("CREATE TABLE bench_bare.finding (LIKE ledger.finding INCLUDING ALL)")
            conn.execute("CREATE TABLE bench_bare.warm (LIKE ledger.finding INCLUDING ALL)")
            conn.execute(IMPORT.format(table="bench_bare.warm", n=10))  # the index functions' first call
            b = timed(lambda: conn.execute(IMPORT.format(table="bench_bare.finding", n=n)))
            t = timed(lambda: conn.execute(IMPORT.format(table="ledger.finding", n=n)))
        row = rep.add("import findings", f"{n} findings in one INSERT ... SELECT, fresh database", [t],
                      "same into the bare table", [b], findings=n, per_finding_ms=round(t / n, 4))
        per_row[n] = t / n
        if n == sizes.imports[-1]:
            rep.target(f"import of {n} findings in one statement <= 3x the bare table", row["ratio"], 3.0,
                       row["ratio"] <= 3.0)
    small, big = sizes.imports[0], sizes.imports[-1]
    at = max(small, 2000)
    rep.plans[f"import: the duplicate-key lookup of tg_finding__lifecycle after {at} findings"] = \
        import_plan(server_dsn, at)
    growth = per_row[big] / per_row[small]
    rep.target(f"import linear: cost per finding at {big} within 1.3x of {small}", growth, 1.3, growth <= 1.3)


def import_plan(server_dsn: str, n: int) -> str:
    """The plan of the lifecycle trigger's duplicate-key lookup once a fresh
    database holds n imported findings: the plan of one more finding's
    insert in the same session (auto_explain, nested; the lookup is planned
    on every call, so this is the plan the import's last rows got)."""
    dsn = migrated_database(server_dsn, f"{DB_PREFIX}_import_plan")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(IMPORT.format(table="ledger.finding", n=n))
        plans = nested_plans(conn, "INSERT INTO ledger.finding (scope, finding_key, title) "
                             "VALUES ('import', 'F-new', 'One more finding')", None,
                             keep=lambda text: "f.finding_key = NEW.finding_key" in text)
    return plans.split("\n\n")[-1] if plans else "no plan captured"


def bench_migrations(server_dsn: str, sizes: Sizes, rep: Report) -> None:
    dsn = fresh_database(server_dsn, f"{DB_PREFIX}_migrate")
    secs = timed(lambda: api.migrate(dsn)) / 1000
    rep.rows.append({"case": "migration", "params": "upgrade head, empty database", "seconds": round(secs, 3)})
    print(f"  migration (empty): {secs:.2f} s", flush=True)
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(api.alembic_config())
    first = script.get_base()
    dsn = fresh_database(server_dsn, f"{DB_PREFIX}_migrate_pop")
    api.migrate(dsn, first)
    with psycopg.connect(dsn, autocommit=True) as conn:
        load_findings(conn, 0, sizes.populated_rows)
        with conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            conn.execute(
                "INSERT INTO ledger.merge (scope, commit_sha, paths, message, processed) "
                "SELECT 'bench-' || (g %% 10), lpad(to_hex(g), 40, '0'), ARRAY['src/x' || g || '.py'], 'm', true "
                "FROM generate_series(1, %s) g",
                (sizes.populated_rows,),
            )
    secs = timed(lambda: api.migrate(dsn)) / 1000
    rep.rows.append({"case": "migration", "params": f"{first} -> head with {sizes.populated_rows} findings and merges",
                     "seconds": round(secs, 3)})
    print(f"  migration (populated): {secs:.2f} s", flush=True)


def bench_claims(server_dsn: str, sizes: Sizes, rep: Report) -> None:
    """Claim latency and throughput, when the claims capability is migrated."""
    dsn = migrated_database(server_dsn, f"{DB_PREFIX}_claims")
    with psycopg.connect(dsn, autocommit=True) as conn:
        # by name: its signature grew (p_lease), and the bench calls it with p_runtime_id alone
        has = conn.execute("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_proc WHERE proname = 'claim_task' "
                           "AND pronamespace = to_regnamespace('ledger'))").fetchone()
        if not has or not has[0]:
            rep.rows.append({"case": "claim", "params": "ledger.claim_task not present: not measured"})
            print("  claims: ledger.claim_task not present, not measured", flush=True)
            return
    bench_claim_cases(dsn, sizes, rep)


CLAIM = "SELECT task_id, issue_state_delta_known FROM ledger.claim_task(p_runtime_id => %s)"
BARE_CLAIM = """
UPDATE bench_bare.agent_task SET status = 'dispatched', dispatched_at = now(), dispatch_count = dispatch_count + 1
 WHERE id = (SELECT id FROM bench_bare.agent_task WHERE runtime_id = %s AND status = 'queued'
              ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id
"""


def load_claim_queue(conn: psycopg.Connection[Any], n: int) -> None:
    """n issues, each with a completed, delivered run (session and snapshot:
    the anchor) and a queued follow-up on runtime 'rt-0'; loaded with triggers
    off, values as the claim functions would have written them (scope included,
    which the trigger would have set). The bare
    baseline table is an identical copy without triggers."""
    with conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute("INSERT INTO ledger.scope (scope) VALUES ('bench-claims') ON CONFLICT DO NOTHING")
        conn.execute(
            "INSERT INTO ledger.issue (scope, title, description, status) "
            "SELECT 'bench-claims', 'Issue ' || g, repeat('The body of the issue. ', 40), 'in_progress' "
            "FROM generate_series(1, %s) g",
            (n,),
        )
        conn.execute(
            """
            INSERT INTO ledger.agent_task (issue_id, scope, agent_id, runtime_id, status, session_id, dispatch_count,
                                           dispatched_at, started_at, completed_at, issue_snapshot)
            SELECT i.id, i.scope, 'agent-1', 'rt-0', 'completed', 'sess-' || i.id, 1, now() - interval '1 hour',
                   now() - interval '59 minutes', now() - interval '50 minutes',
                   ledger.issue_snapshot(i.title, i.description)
              FROM ledger.issue i WHERE i.scope = 'bench-claims'
            """
        )
        conn.execute(
            "INSERT INTO ledger.agent_task (issue_id, scope, agent_id, runtime_id) "
            "SELECT i.id, i.scope, 'agent-1', 'rt-0' FROM ledger.issue i WHERE i.scope = 'bench-claims' ORDER BY i.id"
        )
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_bare")
    conn.execute("CREATE TABLE bench_bare.agent_task (LIKE ledger.agent_task INCLUDING ALL)")
    conn.execute("INSERT INTO bench_bare.agent_task OVERRIDING SYSTEM VALUE SELECT * FROM ledger.agent_task")
    conn.execute("ANALYZE")


def bench_claim_cases(dsn: str, sizes: Sizes, rep: Report) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        load_claim_queue(conn, sizes.claim_tasks)
        count = min(sizes.samples, sizes.claim_tasks // 4)
        warm = max(3, count // 10)
        ledger_ms: list[float] = []
        bare_ms: list[float] = []
        known = 0
        for i in range(warm + count):
            row: list[Any] = []
            t = timed(lambda: row.append(conn.execute(CLAIM, ("rt-0",)).fetchone()))
            b = timed(lambda: conn.execute(BARE_CLAIM, ("rt-0",)).fetchone())
            if i >= warm:
                ledger_ms.append(t)
                bare_ms.append(b)
                known += bool(row[0] and row[0][1])
        r = rep.add("claim", f"{sizes.claim_tasks} follow-ups queued, anchor + snapshot", ledger_ms,
                    "bare SKIP LOCKED claim", bare_ms, delta_known=known)
        rep.target("claim with snapshot and anchor <= 1.5x bare claim", r["ratio"], 1.5, r["ratio"] <= 1.5)
        rep.plans["claim_task (every statement it runs)"] = nested_plans(conn, CLAIM, ("rt-0",))
        profile_claim(conn, rep)
    rates: dict[int, float] = {}
    for claimers in (1, 4, 8):
        stop = time.monotonic() + sizes.claim_seconds
        counts = [0] * claimers
        errors: list[BaseException] = []

        def work(k: int) -> None:
            try:
                with psycopg.connect(dsn, autocommit=True) as c:
                    while time.monotonic() < stop:
                        if c.execute(CLAIM, ("rt-0",)).fetchone() is None:
                            return
                        counts[k] += 1
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(claimers)]
        t0 = time.monotonic()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        elapsed = time.monotonic() - t0
        if errors:
            raise errors[0]
        rates[claimers] = sum(counts) / elapsed
        rep.rows.append({"case": "claim throughput", "params": f"{claimers} concurrent claimers",
                         "claims_per_s": round(rates[claimers], 1), "claims": sum(counts)})
        print(f"  claims/s with {claimers} claimers: {rates[claimers]:.0f}", flush=True)
    cores = os.cpu_count() or 1
    rising = rates[min(4, max(rates))] >= rates[1] if cores > 1 else True
    rep.target(f"claim throughput rises from 1 to {min(4, cores)} claimers ({cores} cores)",
               rates[min(4, max(rates))] / rates[1], 1.0, rising)


def profile_claim(conn: psycopg.Connection[Any], rep: Report) -> None:
    """Per-function profile of one claim (the second of two; rolled back)."""
    for _ in range(2):
        rows = function_profile(conn, lambda: conn.execute(CLAIM, ("rt-0",)).fetchone())
    rep.profiles["claim, anchor + snapshot"] = rows


# --------------------------------------------------------------------------- report


def machine(server: str) -> dict[str, Any]:
    """The machine and the server measured: its own version string (the
    server behind --dsn or LEDGER_DSN need not be the binaries on PATH)."""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    with psycopg.connect(server) as conn:
        row = conn.execute("SELECT version()").fetchone()
    pg = str(row[0]).split(" on ", 1)[0] if row else "unknown"
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "postgres": pg,
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def svg_plot(rep: Report) -> str:
    """Merge latency (median ms, log scale) against path count and against
    findings, the ledger's merge next to the bare insert, as a standalone
    SVG. Written with the standard library: two small log-log line charts
    do not need a plotting library and its dependencies."""
    merges = [r for r in rep.rows if r.get("series") == "latency"]
    if not merges:
        return ""
    largest = max(r["findings"] for r in merges)
    by_paths = sorted((r for r in merges if r["findings"] == largest), key=lambda r: r["paths"])
    by_findings = sorted((r for r in merges if r["paths"] == 100), key=lambda r: r["findings"])
    panels = [(f"latency against paths ({largest:,} findings)", "touched paths", by_paths, "paths"),
              ("latency against findings (100 paths)", "findings in the ledger", by_findings, "findings")]
    width, height, pad_l, pad_r, pad_t, pad_b = 440, 300, 60, 16, 34, 46
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * width}" height="{height + 24}" '
           f'font-family="sans-serif" font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    import math

    for k, (title, xlabel, rows, key) in enumerate(panels):
        if len(rows) < 2:
            continue
        x0 = k * width
        xs = [math.log10(r[key]) for r in rows]
        ys = [math.log10(v) for r in rows for v in (r["median_ms"], r["baseline_median_ms"])]
        xmin, xmax = min(xs), max(xs)
        ymin, ymax = math.floor(min(ys)), math.ceil(max(ys))
        ymax = max(ymax, ymin + 1)

        def px(v: float) -> float:
            return x0 + pad_l + (v - xmin) / (xmax - xmin) * (width - pad_l - pad_r)

        def py(v: float) -> float:
            return pad_t + (ymax - v) / (ymax - ymin) * (height - pad_t - pad_b)

        out.append(f'<text x="{x0 + width / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>')
        out.append(f'<line x1="{px(xmin)}" y1="{py(ymin)}" x2="{px(xmax)}" y2="{py(ymin)}" stroke="black"/>')
        out.append(f'<line x1="{px(xmin)}" y1="{py(ymin)}" x2="{px(xmin)}" y2="{py(ymax)}" stroke="black"/>')
        for e in range(ymin, ymax + 1):
            label = f"{10 ** e:g}"
            out.append(f'<line x1="{px(xmin)}" y1="{py(e)}" x2="{px(xmax)}" y2="{py(e)}" stroke="#ddd"/>')
            out.append(f'<text x="{px(xmin) - 6}" y="{py(e) + 4}" text-anchor="end">{label}</text>')
        for r in rows:
            out.append(f'<text x="{px(math.log10(r[key]))}" y="{py(ymin) + 16}" text-anchor="middle">'
                       f'{r[key]:,}</text>')
        out.append(f'<text x="{x0 + width / 2}" y="{height - 8}" text-anchor="middle">{xlabel}</text>')
        out.append(f'<text x="{x0 + 14}" y="{(pad_t + height - pad_b) / 2}" text-anchor="middle" '
                   f'transform="rotate(-90 {x0 + 14} {(pad_t + height - pad_b) / 2})">median ms</text>')
        for field_, colour in (("median_ms", "#c0392b"), ("baseline_median_ms", "#2c7fb8")):
            points = " ".join(f"{px(math.log10(r[key])):.1f},{py(math.log10(r[field_])):.1f}" for r in rows)
            out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for r in rows:
                out.append(f'<circle cx="{px(math.log10(r[key])):.1f}" cy="{py(math.log10(r[field_])):.1f}" r="3" '
                           f'fill="{colour}"/>')
        for j, (colour, name) in enumerate((("#c0392b", "merge into ledger.merge"),
                                            ("#2c7fb8", "bare insert (no triggers)"))):
            ly = pad_t + 8 + 14 * j
            out.append(f'<line x1="{px(xmin) + 10}" y1="{ly}" x2="{px(xmin) + 30}" y2="{ly}" stroke="{colour}" '
                       f'stroke-width="2"/>')
            out.append(f'<text x="{px(xmin) + 36}" y="{ly + 4}">{name}</text>')
    out.append(f'<text x="8" y="{height + 16}" fill="#555">2 KB message, nothing superseded; medians of '
               'samples alternated with the bare insert (bench/run.py)</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _md_table(header: list[str], rows: list[list[Any]], align: str) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
            + ["| " + " | ".join("" if v is None else str(v) for v in r) + " |" for r in rows])


def write(rep: Report, quick: bool, server: str, out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = {"machine": machine(server), "quick": quick, "rows": rep.rows, "targets": rep.targets, "growth": rep.growth,
            "profiles": rep.profiles, "statements": rep.statements, "notes": rep.notes, "plans": rep.plans}
    (out / "results.json").write_text(json.dumps(data, indent=2, default=str))
    lines = [f"Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores, {data['machine']['postgres']}, "
             f"{data['machine']['when']}{' (quick sizes)' if quick else ''}", ""]
    lines += _md_table(["case", "parameters", "median ms", "p95 ms", "baseline", "baseline median ms", "ratio"],
                       [[r["case"], r["params"], f"{r['median_ms']:.3f}", f"{r['p95_ms']:.3f}", r.get("baseline", ""),
                         r.get("baseline_median_ms", ""), r.get("ratio", "")] for r in rep.rows if "median_ms" in r],
                       ["---", "---", "---:", "---:", "---", "---:", "---:"])
    lines += [""] + _md_table(
        ["other", "parameters", "figure"],
        [[r["case"], r["params"], ", ".join(f"{k} {v}" for k, v in r.items() if k not in ("case", "params"))]
         for r in rep.rows if "median_ms" not in r], ["---", "---", "---"])
    lines += [""] + _md_table(["target", "value", "limit", "holds"],
                              [[t["target"], t["value"], t["limit"], ("yes " if t["holds"] else "NO ") + t["note"]]
                               for t in rep.targets], ["---", "---:", "---:", "---"])
    lines += ["", "### How a merge's cost grows with each input", ""] + _md_table(
        ["input", "value", "median ms", "bare ms", "ratio"],
        [[g["input"], g["value"] if g["value"] is not None else g["params"], g["median_ms"], g["baseline_median_ms"],
          g["ratio"]] for g in rep.growth], ["---", "---:", "---:", "---:", "---:"])
    for label, prof in rep.profiles.items():
        lines += ["", f"### Per-function profile: {label} (track_functions = all)", ""] + _md_table(
            ["function", "language", "SET clauses", "calls", "total ms", "self ms"],
            [[p["function"], p["language"], p["set"], p["calls"], p["total_ms"], p["self_ms"]] for p in prof],
            ["---", "---", "---", "---:", "---:", "---:"])
    for label, st in rep.statements.items():
        lines += ["", f"### Statements and their plans: {label} (pg_stat_statements, track = all)", ""]
        if not st.get("available"):
            lines.append(f"Not measured: {st.get('why')}.")
            continue
        lines.append(f"Per merge, over {st['merges']} merges: {st['replanned_statements']} nested statements "
                     f"planned on every call, {st['nested_plan_ms_per_merge']} ms of planning.")
        lines += [""] + _md_table(
            ["calls", "plans", "plan ms", "exec ms", "statement"],
            [[s["calls_per_merge"], s["plans_per_merge"], s["plan_ms_per_merge"], s["exec_ms_per_merge"],
              "`" + s["query"][:110].replace("|", "\\|").replace("`", "'") + "`"]
             for s in st["statements"] if not s["toplevel"]][:40], ["---:", "---:", "---:", "---:", "---"])
    if rep.notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in rep.notes]
    for name, plan in rep.plans.items():
        lines += ["", f"### Plan: {name}", "", "```", plan, "```"]
    (out / "results.md").write_text("\n".join(lines) + "\n")
    svg = svg_plot(rep)
    if svg:
        (out / PLOT).write_text(svg)
    print(f"wrote {out / 'results.md'}, {out / 'results.json'}" + (f" and {out / PLOT}" if svg else ""))


SECTIONS = ["merges", "import", "replay", "claims", "migrations", "prompt", "real", "capacity"]


def arguments() -> argparse.ArgumentParser:
    """The command line (bench/majors.py checks the arguments it passes on with it). No abbreviations:
    ``--ds`` is not ``--dsn`` (bench/majors.py could not tell a run.py option in disguise)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run of the harness (CI)")
    parser.add_argument("--dsn", default=os.environ.get("LEDGER_DSN"),
                        help="server DSN (needs CREATEDB; default $LEDGER_DSN, else the throwaway cluster)")
    parser.add_argument("--only", choices=SECTIONS, action="append",
                        help="run only this section (repeatable); replay includes bulk recording")
    parser.add_argument("--out", type=Path, default=OUT, help="directory for results.md, results.json and the plot")
    parser.add_argument("--prefix", default="ledger_bench", help="prefix of the databases the benchmark (re)creates")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = arguments().parse_args(argv)
    global DB_PREFIX
    DB_PREFIX = args.prefix
    sizes = QUICK if args.quick else FULL
    server = args.dsn or cluster.ensure_cluster().dsn("postgres")
    rep = Report()
    only = set(args.only or SECTIONS)
    started = time.perf_counter()
    if "merges" in only:
        print("== merge insert latency, growth, profile", flush=True)
        dsn = migrated_database(server, f"{DB_PREFIX}_merges")
        with psycopg.connect(dsn, autocommit=True) as conn:
            bench_merges(conn, sizes, rep)
    if "import" in only:
        print("== import findings", flush=True)
        bench_import(server, sizes, rep)
    if "claims" in only:
        print("== claims", flush=True)
        bench_claims(server, sizes, rep)
    if "replay" in only:
        print("== bulk recording and replay", flush=True)
        bench_replay(server, sizes, rep)
    if "migrations" in only:
        print("== migrations", flush=True)
        bench_migrations(server, sizes, rep)
    if "prompt" in only:
        print("== the prompt read at 1,000, 100,000 and 1,000,000 active findings", flush=True)
        real_work.bench_prompt_section(server, migrated_database, DB_PREFIX, args.quick, rep)
    if "real" in only:
        print("== real work (corpus histories, per-merge split, replay-git, concurrency)", flush=True)
        real_work.bench_real_section(server, migrated_database, DB_PREFIX, args.quick, rep)
    if "capacity" in only:
        print("== capacity of one node: merges and prompt reads per second at 1, 10 and 100 scopes", flush=True)
        capacity.bench_capacity(server, migrated_database, DB_PREFIX, args.quick, rep)
    drop_template(server)
    rep.other("benchmark", "wall-clock time of this run", seconds=round(time.perf_counter() - started, 1))
    write(rep, args.quick, server, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
