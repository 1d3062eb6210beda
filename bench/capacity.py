"""The capacity of one node (``make bench``, section ``capacity``; docs/scaling.md turns it into
merges a day for a number of agents).

For 1, 10 and 100 scopes, each on a fresh migrated database holding realistic findings per scope
(200 active findings: a third drift, the rest review, every severity, each on
one of the scope's ``FILES`` files, with a description; written through the triggers, as a
service writes them), ``CONNECTIONS`` connections work for a fixed time:

* merges: each transaction records one merge (one INSERT, the triggers deciding) of 3 of its
  scope's files with a 200-character message, into the scopes in turn; each scope retires a
  drift finding on a touch (the README's policy; review findings are not subject to the path
  rule by default). Reported: merges per second, and the active findings before and after
  (merges retire them as they go);
* prompt reads: each call is ``ledger.read_prompt_findings(scope, p_max_chars => 4000)``, the
  prompt builder's read, into the scopes in turn. Reported: reads per second.

Every connection sets ``synchronous_commit = on`` (the throwaway cluster's default is off; it
also runs with ``fsync = off``, so a commit's WAL flush costs nothing here that it would cost on
a durable server's disk). The figures are throughput of the whole node, not latencies; each row
records the machine's load average (1 minute) before and after its runs, since a shared machine's
other work takes from them.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import sql

SCOPES = (1, 10, 100)
FILES = 1000  # files per scope's repository
CONNECTIONS = 4
MESSAGE = ("Move the loader cache into its own module and update its callers. " * 4)[:200]

LOAD = """
INSERT INTO ledger.finding (scope, title, kind, severity, paths, description)
SELECT %(scope)s, 'Finding ' || g || ': the loader reads file ' || g || ' twice',
       CASE WHEN g %% 3 = 0 THEN 'drift' ELSE 'review' END,
       (ARRAY['critical','high','medium','low','info'])[1 + g %% 5],
       ARRAY['src/pkg' || (g * 7 %% %(files)s %% 37) || '/file' || (g * 7 %% %(files)s) || '.py'],
       'The second read should come from the cache; see the loader''s tests for the expected calls.'
  FROM generate_series(1, %(n)s) AS g
"""
#: the README's policy: a touch retires a drift finding too (the shipped mode flags it)
POLICY = "SELECT ledger.set_match_policy(%s, p_create => true, p_touch => 'retire', p_touch_kind => 'drift')"
ACTIVE = "SELECT count(*) FROM ledger.active_finding"
MERGE = "INSERT INTO ledger.merge (scope, commit_sha, message, paths) VALUES (%s, %s, %s, %s)"
PROMPT = "SELECT included_count FROM ledger.read_prompt_findings(%s, p_max_chars => 4000)"


def scope_name(i: int) -> str:
    return f"repo-{i:03d}"


def file_of(f: int) -> str:
    """File ``f`` of a scope's repository (the findings name the files ``7 g mod FILES``)."""
    return f"src/pkg{f % 37}/file{f}.py"


def load(dsn: str, scopes: int, per_scope: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for s in range(scopes):
            conn.execute(POLICY, (scope_name(s),))
            conn.execute(LOAD, {"scope": scope_name(s), "n": per_scope, "files": FILES})
        conn.execute("VACUUM ANALYZE")


def throughput(dsn: str, seconds: float,
               step: Callable[[psycopg.Connection[Any], int, int], None]) -> tuple[float, int, int]:
    """``CONNECTIONS`` threads call ``step(conn, worker, i)`` until ``seconds`` have passed;
    returns (calls per second, calls, errors)."""
    counts = [0] * CONNECTIONS
    errors = [0] * CONNECTIONS
    ready = threading.Barrier(CONNECTIONS + 1)
    stop = [0.0]

    def work(w: int) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("SET synchronous_commit = on")
            ready.wait()
            i = 0
            while time.perf_counter() < stop[0]:
                try:
                    step(conn, w, i)
                    counts[w] += 1
                except psycopg.Error:
                    errors[w] += 1
                i += 1

    threads = [threading.Thread(target=work, args=(w,)) for w in range(CONNECTIONS)]
    for t in threads:
        t.start()
    stop[0] = time.perf_counter() + seconds
    t0 = time.perf_counter()
    ready.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    return sum(counts) / elapsed, sum(counts), sum(errors)


def bench_capacity(server: str, migrated_database: Callable[[str, str], str], prefix: str, quick: bool,
                   rep: Any) -> None:
    per_scope = 20 if quick else 200  # quick: the smoke test proves the harness, not the figures
    seconds = 0.5 if quick else 15.0  # quick: the smoke test proves the harness, not the figures
    for scopes in SCOPES:
        name = f"{prefix}_capacity"
        dsn = migrated_database(server, name)
        load(dsn, scopes, per_scope)
        with psycopg.connect(dsn, autocommit=True) as conn:
            before = conn.execute(ACTIVE).fetchone()[0]  # type: ignore[index]

        def merge(conn: psycopg.Connection[Any], w: int, i: int, scopes: int = scopes) -> None:
            k = i * CONNECTIONS + w
            scope = k % scopes
            paths = [file_of((k * 31 + j * 17) % FILES) for j in range(3)]
            sha = hashlib.sha1(f"{w}-{i}".encode()).hexdigest()
            conn.execute(MERGE, (scope_name(scope), sha, MESSAGE, paths))

        def read(conn: psycopg.Connection[Any], w: int, i: int, scopes: int = scopes) -> None:
            conn.execute(PROMPT, (scope_name((i * CONNECTIONS + w) % scopes),)).fetchone()

        load_before = os.getloadavg()[0]
        reads_s, reads, read_errors = throughput(dsn, seconds, read)
        merges_s, merges, merge_errors = throughput(dsn, seconds, merge)
        with psycopg.connect(dsn, autocommit=True) as conn:
            after = conn.execute(ACTIVE).fetchone()[0]  # type: ignore[index]
        params = f"{scopes} scopes x {per_scope} findings, {CONNECTIONS} connections, {seconds:g} s"
        rep.other("capacity", params, merges_per_s=round(merges_s, 1), merges=merges, merge_errors=merge_errors,
                  prompt_reads_per_s=round(reads_s, 1), prompt_reads=reads, read_errors=read_errors,
                  active_findings_before=before, active_findings_after=after,
                  load_average=f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
