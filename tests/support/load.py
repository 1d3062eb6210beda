"""Concurrent load against the ledger and its serial-replay check.

Workers (one connection each, as ledger_writer, READ COMMITTED, one merge or
one batch of findings per transaction) insert findings and merges with
overlapping paths into the same scopes. Every transaction also writes one
row to public.stress_log, last, under a transaction-scoped advisory lock, so
that the log's sequence order IS the commit order (the lock is released only
when the commit is complete). A merge transaction first records start_seen,
the highest log entry visible to its first statement: every finding logged
up to there was committed before the merge looked for findings.

check_serial_replay() then replays the log in commit order with a reference
implementation of the path rule and demands the database agree with it.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import psycopg

import findings_ledger as fl

SCOPES = ("load-0", "load-1")
FILES = ("src/a.py", "src/b.py", "src/c/d.py", "src/c/e.py", "lib/x.py", "lib/y/z.py", "docs/r.md")
DIRS = ("src/", "src/c/", "lib/", "lib/y/", "docs/")
LOG_LOCK = 7331  # advisory lock key that orders the log by commit

SETUP = """
CREATE TABLE IF NOT EXISTS public.stress_log (
    seq        bigint PRIMARY KEY,
    kind       text NOT NULL,          -- 'finding' or 'merge'
    ref_ids    bigint[] NOT NULL,      -- the finding ids, or the merge id
    start_seen bigint,                 -- merges: highest seq visible at the start
    commit_sha text
);
CREATE SEQUENCE IF NOT EXISTS public.stress_seq;
GRANT SELECT, INSERT ON public.stress_log TO ledger_writer;
GRANT USAGE ON SEQUENCE public.stress_seq TO ledger_writer;
"""

LOG = ("INSERT INTO public.stress_log "
       "SELECT nextval('public.stress_seq'), %(kind)s, %(ids)s, %(seen)s, %(sha)s FROM pg_advisory_xact_lock(%(lock)s)")


def setup(conn: psycopg.Connection[Any]) -> None:
    conn.execute(SETUP)
    for scope in SCOPES:
        fl.set_hygiene_mode(conn, scope, "on", create=True)
        fl.set_match_policy(conn, scope, touch="retire", touch_kind="drift")  # the path rule as such


@dataclass
class WorkerReport:
    """What one worker did, as its client saw it."""

    committed_shas: list[str] = field(default_factory=list)  # merges whose COMMIT returned
    in_doubt_shas: list[str] = field(default_factory=list)  # COMMIT sent, connection lost
    transactions: int = 0
    errors: list[str] = field(default_factory=list)


def worker(dsn: str, number: int, seconds: float, report: WorkerReport, stop: threading.Event,
           synchronous_commit: bool = False) -> None:
    """Insert findings and merges for ``seconds`` (or until ``stop``); record
    every error a caller would see in ``report.errors``."""
    rnd = random.Random(number)
    deadline = time.monotonic() + seconds
    counter = 0
    try:
        conn = psycopg.connect(dsn)
    except psycopg.Error as exc:
        report.errors.append(f"connect: {exc}")
        return
    try:
        conn.execute("SET ROLE ledger_writer")
        if synchronous_commit:
            conn.execute("SET synchronous_commit = on")  # the throwaway cluster defaults to off
        conn.commit()
        while time.monotonic() < deadline and not stop.is_set():
            counter += 1
            scope = rnd.choice(SCOPES)
            sha = f"{number:02x}{counter:010x}"
            kind = "merge" if rnd.random() < 0.45 else "finding"
            try:
                if kind == "finding":
                    rows = [(scope, f"w{number} #{counter}.{i}", "drift",
                             rnd.sample(FILES + DIRS, rnd.randint(1, 2))) for i in range(rnd.randint(1, 3))]
                    with conn.cursor() as cur:
                        ids = []
                        for row in rows:
                            cur.execute("INSERT INTO ledger.finding (scope, title, kind, paths) "
                                        "VALUES (%s, %s, %s, %s) RETURNING id", row)
                            ids.append(cur.fetchone()[0])  # type: ignore[index]
                        cur.execute(LOG, {"lock": LOG_LOCK, "kind": "finding", "ids": ids, "seen": None,
                                          "sha": None})
                else:
                    seen = conn.execute("SELECT coalesce(max(seq), 0) FROM public.stress_log").fetchone()[0]  # type: ignore[index]
                    paths = rnd.sample(FILES, rnd.randint(1, 3))
                    if counter % 2:
                        mid = fl.record_merge(conn, scope, sha, paths, node_id=f"w{number}").merge_id
                    else:
                        mid = conn.execute(
                            "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES (%s, %s, %s) RETURNING id",
                            (scope, sha, paths)).fetchone()[0]  # type: ignore[index]
                    conn.execute(LOG, {"lock": LOG_LOCK, "kind": "merge", "ids": [mid], "seen": seen, "sha": sha})
            except psycopg.OperationalError as exc:
                report.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                return
            except (psycopg.Error, fl.LedgerError) as exc:
                report.errors.append(f"{kind}: {type(exc).__name__}: {getattr(exc, 'sqlstate', None)} {exc}")
                conn.rollback()
                continue
            try:
                conn.commit()
            except psycopg.OperationalError:
                if kind == "merge":
                    report.in_doubt_shas.append(sha)
                return
            report.transactions += 1
            if kind == "merge":
                report.committed_shas.append(sha)
    finally:
        conn.close()


def run_load(dsn: str, workers: int, seconds: float, synchronous_commit: bool = False,
             stop: threading.Event | None = None) -> list[WorkerReport]:
    stop = stop or threading.Event()
    reports = [WorkerReport() for _ in range(workers)]
    threads = [threading.Thread(target=worker, args=(dsn, n, seconds, reports[n], stop, synchronous_commit))
               for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return reports


def path_keys(path: str) -> list[str]:
    """The path and each ancestor directory ('a/b/c.py' -> a/b/c.py, a/, a/b/)."""
    parts = path.split("/")
    return [path] + ["/".join(parts[:n]) + "/" for n in range(1, len(parts)) if parts[n - 1]]


def reference_match(finding_paths: list[str], touched: list[str]) -> bool:
    return any(fp == t or (fp.endswith("/") and t.startswith(fp)) for fp in finding_paths for t in touched)


def check_serial_replay(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Replay the committed transactions of public.stress_log in commit order
    and assert that the ledger agrees with the reference path rule:

    * a merge supersedes each active finding of its scope that it could see
      and that references a touched path; "could see" is certain when the
      finding committed before the merge's first statement (seq <=
      start_seen) and excluded when it committed after the merge; in
      between (it committed while the merge ran) the merge's audit says
      whether the merge saw it; a finding it saw that was observed after
      the merge's merged_at (its transaction began after the merge's) is
      audited 'not_before_observed' and stays active (causality);
    * a finding the merge saw but an earlier-committed merge superseded
      meanwhile is audited 'already_superseded', never superseded twice;
    * every superseded finding has exactly one 'superseded' audit row, from
      the merge the replay names, and the database's superseded_by columns
      say the same; nothing is audited that the rule does not explain;
    * the log and the tables hold exactly the same findings and merges.
    Returns counts for the report.
    """
    log = conn.execute("SELECT seq, kind, ref_ids, start_seen FROM public.stress_log ORDER BY seq").fetchall()
    findings = {r[0]: r[1:] for r in conn.execute(
        "SELECT id, scope, paths, superseded_by_merge_id, superseded_by, supersede_rule, superseded_at IS NOT NULL "
        "FROM ledger.finding").fetchall()}
    observed = dict(conn.execute("SELECT id, least(observed_at, created_at) FROM ledger.finding").fetchall())
    merges = {r[0]: r[1:] for r in conn.execute(
        "SELECT id, scope, paths, coalesce(node_id, commit_sha), processed FROM ledger.merge").fetchall()}
    merged_at = dict(conn.execute("SELECT id, merged_at FROM ledger.merge").fetchall())
    audit: dict[int, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for fid, mid, action in conn.execute("SELECT finding_id, merge_id, action FROM ledger.supersession").fetchall():
        audit[mid][fid].append(action)

    logged_findings = [i for _, kind, ids, _ in log if kind == "finding" for i in ids]
    logged_merges = [ids[0] for _, kind, ids, _ in log if kind == "merge"]
    assert sorted(logged_findings) == sorted(findings), "findings and log disagree (a partial transaction?)"
    assert sorted(logged_merges) == sorted(merges), "merges and log disagree (a partial transaction?)"
    assert all(m[3] for m in merges.values()), "a merge was not processed by the triggers"

    seq_of_finding: dict[int, int] = {}
    seq_of_merge: dict[int, int] = {}
    superseded_by: dict[int, int] = {}
    active_index: dict[tuple[str, str], set[int]] = defaultdict(set)
    for seq, kind, ids, start_seen in log:
        if kind == "finding":
            for fid in ids:
                seq_of_finding[fid] = seq
                scope, paths = findings[fid][0], findings[fid][1]
                for p in paths:
                    active_index[(scope, p)].add(fid)
            continue
        mid = ids[0]
        seq_of_merge[mid] = seq
        scope, touched = merges[mid][0], merges[mid][1]
        decisions = audit.get(mid, {})
        candidates = {fid for t in touched for key in path_keys(t) for fid in active_index.get((scope, key), ())}
        for fid in sorted(candidates):
            visible = seq_of_finding[fid] <= start_seen or fid in decisions
            if not visible:
                continue
            if merged_at[mid] < observed[fid]:
                assert decisions.get(fid) == ["not_before_observed"], (mid, fid, decisions.get(fid))
                continue
            assert decisions.get(fid) == ["superseded"], (mid, fid, decisions.get(fid))
            superseded_by[fid] = mid
            for p in findings[fid][1]:
                active_index[(scope, p)].discard(fid)
        for fid, actions in decisions.items():
            if actions == ["superseded"]:
                assert superseded_by.get(fid) == mid, (mid, fid, "superseded without the rule")
                continue
            if actions == ["not_before_observed"]:
                assert merged_at[mid] < observed[fid], (mid, fid, "not_before_observed, yet observed before")
                continue
            assert actions == ["already_superseded"], (mid, fid, actions)
            winner = superseded_by.get(fid)
            assert winner is not None and winner != mid, (mid, fid, "already_superseded but nobody superseded it")
            assert start_seen < seq_of_merge[winner] < seq, (mid, fid, "the winner committed before this merge began")
            assert findings[fid][0] == scope and reference_match(findings[fid][1], touched)

    for fid, (_scope, _paths, by_merge, by_marker, rule, is_superseded) in findings.items():
        assert by_merge == superseded_by.get(fid), (fid, by_merge, superseded_by.get(fid))
        assert is_superseded == (fid in superseded_by)
        if fid in superseded_by:
            assert (by_marker, rule) == (merges[superseded_by[fid]][2], "path")
    per_finding = conn.execute(
        "SELECT finding_id, count(*) FILTER (WHERE action = 'superseded') FROM ledger.supersession "
        "GROUP BY finding_id").fetchall()
    assert all(n == (1 if fid in superseded_by else 0) for fid, n in per_finding)
    assert len([f for f, n in per_finding if n == 1]) == len(superseded_by)
    return {
        "transactions": len(log),
        "findings": len(findings),
        "merges": len(merges),
        "superseded": len(superseded_by),
        "already_superseded": sum(a == ["already_superseded"] for d in audit.values() for a in d.values()),
    }
