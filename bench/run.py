"""findings-ledger benchmark (``make bench``; ``--quick`` for the CI smoke run).

Method: psycopg 3 and ``time.perf_counter_ns`` around the one statement under
test, measured client-side over a Unix socket, after a warm-up. Every figure
is printed next to a baseline measured in the same run on the same data, as a
ratio, because shared machines are noisy. State-changing samples run in a
transaction that is rolled back after the clock stops, so every sample sees
the same ledger. Results go to ``bench/out/results.json`` and
``bench/out/results.md`` (medians and 95th percentiles, in milliseconds).

Why a script and not pgbench or pytest-benchmark: the cases need data loaded
in stages (10k -> 100k -> 1M findings), an application-side baseline written
in Python, concurrent claimers on separate connections and the migration
itself, which neither tool drives; a plain script keeps all of that in one
readable place. Tests never time anything; this script does.
"""

from __future__ import annotations

import argparse
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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from findings_ledger import api, gitlog
from findings_ledger.testing import cluster

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
DB_PREFIX = "ledger_bench"
MESSAGE = ("Refactor the loader and its tests. " * 60)[:2048]  # 2 KB commit message


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


FULL = Sizes([10_000, 100_000, 1_000_000], [1, 10, 100, 1000], 200, 40, 5, 60_000, 5.0, 10_000, 10_000, 100_000)
QUICK = Sizes([1_000, 5_000], [1, 10, 100], 15, 5, 2, 3_000, 0.5, 300, 500, 2_000)


@dataclass
class Report:
    rows: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)
    plans: dict[str, str] = field(default_factory=dict)

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

    def target(self, name: str, value: float, limit: float, holds: bool, why: str = "") -> None:
        self.targets.append({"target": name, "value": round(value, 3), "limit": limit, "holds": holds, "note": why})
        print(f"  target {name}: {value:.3f} (limit {limit}) -> {'HOLDS' if holds else 'MISSED'} {why}", flush=True)


def p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - t0) / 1e6


# --------------------------------------------------------------------------- data


def fresh_database(server_dsn: str, name: str) -> str:
    with psycopg.connect(server_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    params = psycopg.conninfo.conninfo_to_dict(server_dsn)
    params["dbname"] = name
    return psycopg.conninfo.make_conninfo(**params)


def load_findings(conn: psycopg.Connection[Any], start: int, stop: int) -> None:
    """Findings start+1..stop: a tenth in scope 'bench-0', the rest spread over
    'bench-1'..'bench-9'; two paths each under src/ and a directory under docs/.
    Loaded with triggers off (session_replication_role = replica) because the
    values are generated already normalised; the GIN index is maintained."""
    with conn.transaction():
        # the scope rows first, as the triggers would have created them
        conn.execute("INSERT INTO ledger.scope (scope) SELECT 'bench-' || g FROM generate_series(0, 9) AS g "
                     "ON CONFLICT DO NOTHING")
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(
            """
            INSERT INTO ledger.finding (scope, title, kind, severity, paths, description)
            SELECT 'bench-' || (g %% 10), 'finding ' || g, 'drift', 'medium',
                   ARRAY['src/pkg' || (g %% 211) || '/mod' || (g %% 97) || '/file' || g || '.py',
                         'docs/section' || (g %% 1013) || '/'],
                   'Generated finding ' || g
              FROM generate_series(%s::bigint + 1, %s::bigint) AS g
            """,
            (start, stop),
        )
    conn.execute("ANALYZE ledger.finding")


def touched(n: int, salt: int) -> list[str]:
    """n touched paths under existing directories, with new file names (so the
    merge supersedes nothing and the figure is the lookup cost alone)."""
    return [f"src/pkg{(salt + i) % 211}/mod{(salt * 7 + i) % 97}/new_{salt}_{i}.py" for i in range(n)]


def nested_plans(conn: psycopg.Connection[Any], stmt: str, params: Any) -> str:
    """EXPLAIN (ANALYZE, BUFFERS) of ``stmt`` and of every statement the
    functions and triggers it fires run, via auto_explain with
    log_nested_statements, its LOG lines sent to this client. Rolled back.
    Needs the right to LOAD auto_explain (superuser on the throwaway cluster);
    otherwise says so."""
    lines: list[str] = []

    def on_notice(diag: psycopg.errors.Diagnostic) -> None:
        if diag.message_primary and "plan:" in diag.message_primary:
            lines.append(diag.message_primary)

    try:
        conn.execute("LOAD 'auto_explain'")
    except psycopg.Error as exc:
        return f"auto_explain unavailable here: {exc}"
    conn.add_notice_handler(on_notice)
    try:
        with conn.transaction(force_rollback=True):
            for setting in ("auto_explain.log_min_duration = 0", "auto_explain.log_analyze = on",
                            "auto_explain.log_buffers = on", "auto_explain.log_nested_statements = on",
                            "auto_explain.log_timing = on", "client_min_messages = log"):
                conn.execute(f"SET LOCAL {setting}")
            conn.execute(stmt, params)
    finally:
        conn.remove_notice_handler(on_notice)
    return "\n\n".join(lines)


# --------------------------------------------------------------------------- cases

INSERT_MERGE = "INSERT INTO {table} (scope, commit_sha, paths, message) VALUES (%s, %s, %s, %s)"


def sample_insert(conn: psycopg.Connection[Any], table: str, paths: list[str], sha: str) -> float:
    stmt = INSERT_MERGE.format(table=table)
    with conn.transaction(force_rollback=True):
        return timed(lambda: conn.execute(stmt, ("bench-0", sha, paths, MESSAGE)))


def app_side_merge(conn: psycopg.Connection[Any], paths: list[str], sha: str) -> float:
    """The straightforward application-side implementation of the path rule:
    insert the merge, select the scope's active findings, match in Python,
    update row by row."""

    def run() -> None:
        conn.execute(INSERT_MERGE.format(table="bench_bare.merge"), ("bench-0", sha, paths, MESSAGE))
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


def bench_merges(conn: psycopg.Connection[Any], sizes: Sizes, rep: Report) -> dict[tuple[int, int], float]:
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_bare")
    conn.execute("CREATE TABLE IF NOT EXISTS bench_bare.merge (LIKE ledger.merge INCLUDING ALL)")
    medians: dict[tuple[int, int], float] = {}
    loaded = 0
    salt = 0
    for n in sizes.findings:
        print(f"loading findings {loaded} -> {n}", flush=True)
        load_findings(conn, loaded, n)
        loaded = n
        for pc in sizes.path_counts:
            count = sizes.samples_1000 if pc >= 1000 else sizes.samples
            warm = max(3, count // 10)
            trig: list[float] = []
            bare: list[float] = []
            for i in range(warm + count):
                salt += 1
                paths = touched(pc, salt)
                # alternate so drift in machine load hits both sides alike
                t = sample_insert(conn, "ledger.merge", paths, f"{salt:040x}")
                b = sample_insert(conn, "bench_bare.merge", paths, f"{salt:040x}")
                if i >= warm:
                    trig.append(t)
                    bare.append(b)
            row = rep.add("merge insert", f"{n} findings, {pc} paths", trig, "bare insert", bare,
                          findings=n, paths=pc)
            medians[(n, pc)] = row["median_ms"]
            if pc == 100 and n == sizes.findings[-1]:
                rep.target("trigger overhead (100 paths, largest ledger) <= 3x bare insert", row["ratio"], 3.0,
                           row["ratio"] <= 3.0)
        # application-side baseline at the size where the scope holds a tenth
        if n == sizes.findings[-1] or n == 1_000_000:
            pc = 100
            app = []
            trig = []
            for _ in range(sizes.app_samples + 1):
                salt += 1
                paths = touched(pc, salt)
                app.append(app_side_merge(conn, paths, f"{salt:040x}"))
                trig.append(sample_insert(conn, "ledger.merge", paths, f"{salt:040x}"))
            app, trig = app[1:], trig[1:]
            row = rep.add("app-side path rule", f"{n} findings ({n // 10} in scope), {pc} paths", app,
                          "ledger trigger", trig, findings=n, paths=pc)
            rep.target(f"ledger >= 50x faster than app-side at {n // 10} findings in scope", row["ratio"], 50.0,
                       row["ratio"] >= 50.0)
    first, last = sizes.findings[0], sizes.findings[-1]
    for pc in sizes.path_counts:
        ratio = medians[(last, pc)] / medians[(first, pc)]
        rep.rows.append({"case": "scaling", "params": f"{pc} paths: {last} vs {first} findings", "ratio": round(ratio, 3)})
        print(f"  scaling {pc} paths: x{ratio:.3f}", flush=True)
        if pc == 100:
            rep.target(f"scale-free: latency at {last} within 1.3x of {first} (100 paths)", ratio, 1.3, ratio <= 1.3)
    rep.plans["merge insert, 100 paths (every statement the triggers run)"] = nested_plans(
        conn, "INSERT INTO ledger.merge (scope, commit_sha, paths, message) VALUES ('bench-0', 'ffff0000', %s, %s)",
        (touched(100, 999_999), MESSAGE))
    return medians


def bench_replay(server_dsn: str, sizes: Sizes, rep: Report) -> None:
    dsn = fresh_database(server_dsn, f"{DB_PREFIX}_replay")
    api.migrate(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        load_findings(conn, 0, sizes.replay_findings)
        history = [
            gitlog.GitMerge(
                sha=f"{i + 1:040x}",
                parents=(f"{i:040x}",),
                committed_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                message=f"Change {i}\n\nTouches a few files.",
                paths=tuple(f"src/pkg{(i * 3 + k) % 211}/mod{(i + k) % 97}/file{(i * 13 + k) % 50_000}.py"
                            for k in range(5)),
            )
            for i in range(sizes.replay_commits)
        ]
        t0 = time.perf_counter()
        results = gitlog.replay(conn, "bench-0", history)
        elapsed = time.perf_counter() - t0
    rate = len(history) / elapsed
    superseded = sum(len(r.superseded) for r in results)
    rep.rows.append({"case": "replay", "params": f"{len(history)} commits, {sizes.replay_findings} findings",
                     "merges_per_s": round(rate, 1), "seconds": round(elapsed, 3), "superseded": superseded})
    print(f"  replay: {rate:.0f} merges/s ({elapsed:.2f} s, {superseded} superseded)", flush=True)
    rep.target("replay >= 2000 merges/s", rate, 2000.0, rate >= 2000.0)


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
    dsn = fresh_database(server_dsn, f"{DB_PREFIX}_claims")
    api.migrate(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        has = conn.execute("SELECT to_regprocedure('ledger.claim_task(text,text)') IS NOT NULL").fetchone()
        if not has or not has[0]:
            rep.rows.append({"case": "claim", "params": "ledger.claim_task(text, text) not present: not measured"})
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
    off, values as the claim functions would have written them. The bare
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
            INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, status, session_id, dispatch_count,
                                           dispatched_at, started_at, completed_at, issue_snapshot)
            SELECT i.id, 'agent-1', 'rt-0', 'completed', 'sess-' || i.id, 1, now() - interval '1 hour',
                   now() - interval '59 minutes', now() - interval '50 minutes',
                   ledger.issue_snapshot(i.title, i.description)
              FROM ledger.issue i WHERE i.scope = 'bench-claims'
            """
        )
        conn.execute(
            "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) "
            "SELECT i.id, 'agent-1', 'rt-0' FROM ledger.issue i WHERE i.scope = 'bench-claims' ORDER BY i.id"
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


# --------------------------------------------------------------------------- report


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    pg = subprocess.run([str(cluster.bindir() / "postgres"), "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(), "postgres": pg,
            "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def write(rep: Report, quick: bool, out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    data = {"machine": machine(), "quick": quick, "rows": rep.rows, "targets": rep.targets, "plans": rep.plans}
    (out / "results.json").write_text(json.dumps(data, indent=2))
    lines = [f"Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores, {data['machine']['postgres']}, "
             f"{data['machine']['when']}{' (quick sizes)' if quick else ''}", "",
             "| case | parameters | median ms | p95 ms | baseline | baseline median ms | ratio |",
             "|---|---|---:|---:|---|---:|---:|"]
    for r in rep.rows:
        if "median_ms" in r:
            lines.append(f"| {r['case']} | {r['params']} | {r['median_ms']:.3f} | {r['p95_ms']:.3f} | "
                         f"{r.get('baseline', '')} | {r.get('baseline_median_ms', '')} | {r.get('ratio', '')} |")
    lines += ["", "| other | parameters | figure |", "|---|---|---|"]
    for r in rep.rows:
        if "median_ms" not in r:
            fig = ", ".join(f"{k} {v}" for k, v in r.items() if k not in ("case", "params"))
            lines.append(f"| {r['case']} | {r['params']} | {fig} |")
    lines += ["", "| target | value | limit | holds |", "|---|---:|---:|---|"]
    for t in rep.targets:
        lines.append(f"| {t['target']} | {t['value']} | {t['limit']} | {'yes' if t['holds'] else 'NO'} {t['note']} |")
    for name, plan in rep.plans.items():
        lines += ["", f"### Plan: {name}", "", "```", plan, "```"]
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {out / 'results.md'} and {out / 'results.json'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run of the harness (CI)")
    parser.add_argument("--dsn", default=os.environ.get("LEDGER_DSN"),
                        help="server DSN (needs CREATEDB; default $LEDGER_DSN, else the throwaway cluster)")
    parser.add_argument("--only", choices=["merges", "replay", "claims", "migrations"], action="append")
    parser.add_argument("--out", type=Path, default=OUT, help="directory for results.md and results.json")
    parser.add_argument("--prefix", default="ledger_bench", help="prefix of the databases the benchmark (re)creates")
    args = parser.parse_args(argv)
    global DB_PREFIX
    DB_PREFIX = args.prefix
    sizes = QUICK if args.quick else FULL
    server = args.dsn or cluster.ensure_cluster().dsn("postgres")
    rep = Report()
    only = set(args.only or ["merges", "replay", "claims", "migrations"])
    if "merges" in only:
        print("== merge insert latency", flush=True)
        dsn = fresh_database(server, f"{DB_PREFIX}_merges")
        api.migrate(dsn)
        with psycopg.connect(dsn, autocommit=True) as conn:
            bench_merges(conn, sizes, rep)
    if "claims" in only:
        print("== claims", flush=True)
        bench_claims(server, sizes, rep)
    if "replay" in only:
        print("== replay", flush=True)
        bench_replay(server, sizes, rep)
    if "migrations" in only:
        print("== migrations", flush=True)
        bench_migrations(server, sizes, rep)
    write(rep, args.quick, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
