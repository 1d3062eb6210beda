"""What users pay (part of ``bench/run.py --only real``): each figure against a
baseline measured in the same run on the same rows.

* **Per merge in a service.** The histories of spf13/viper (the corpus) and
  agent-fox (its bundle), each merge one INSERT in a transaction of its own,
  into a scope holding the benchmark's findings (the corpus findings and 300
  line-anchored drift findings on the files the history touches, retired on a
  touch). Baseline: the same row into ``bench_min.merge``, a table with one
  trigger that applies the path rule alone (:data:`MINIMAL`: a drift finding
  whose path, or one of whose directories, the merge touched, is retired)
  over a copy of the scope's findings. Figure: the backend's CPU at the
  median merge.
* **The retirement's own cost.** Before each merge is recorded, the same
  merge with the scope's hygiene mode ``dry`` (rolled back); for the merges
  that retire a finding, the median of ``on`` minus ``dry``.
* **The marginal cost of an anchored finding on a touched file.** The slope
  of (ledger CPU minus minimal CPU) against the active anchored findings on
  the merge's files, by least squares over the history.
* **WAL and audit.** ``pg_current_wal_insert_lsn()`` around each INSERT (the
  commit record left out on both sides) against the same row into the bare
  table ``bench_bare.merge``; the bytes of the audit rows each merge wrote
  that are not retirements, with 300 and with 3,000 anchored findings: the
  target is those that are not the merge's anchor record (a kept anchor
  writes nothing, a moved one is an entry of the record: its bytes per
  moved anchor are a figure).
* **replay-git.** The CPU of ``git log -p`` with the options replay-git
  passes (its own process, ``getrusage`` of the child) against the backend's
  CPU recording the history read beforehand; the wall time of the pipelined
  replay (reading and recording overlapped) against the larger of reading
  alone and recording alone.

Backend CPU is the server process's own time: the first field of
``/proc/<pg_backend_pid()>/schedstat`` (nanoseconds on the CPU), read before
and after the statement, so waiting for a core on a loaded machine does not
count. It needs the server on this machine; otherwise the section says so.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

from findings_ledger import api, gitlog
from findings_ledger.checks import normalized_paths

MINIMAL = """
CREATE SCHEMA IF NOT EXISTS bench_min;
CREATE TABLE IF NOT EXISTS bench_min.merge (LIKE ledger.merge INCLUDING ALL);
CREATE TABLE IF NOT EXISTS bench_min.finding (
    id bigint PRIMARY KEY, scope text NOT NULL, kind text NOT NULL, paths text[] NOT NULL,
    superseded_at timestamptz, superseded_by_merge_id bigint);
CREATE INDEX IF NOT EXISTS finding_active_paths_idx ON bench_min.finding USING gin (paths)
    WHERE superseded_at IS NULL;
CREATE OR REPLACE FUNCTION bench_min.tg_path_rule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE bench_min.finding f
       SET superseded_at = now(), superseded_by_merge_id = NEW.id
     WHERE f.superseded_at IS NULL AND f.scope = NEW.scope AND f.kind = 'drift'
       AND f.paths && ARRAY(
           SELECT DISTINCT k
             FROM unnest(NEW.paths) AS p(path),
                  LATERAL (SELECT p.path
                           UNION ALL
                           SELECT array_to_string((string_to_array(p.path, '/'))[1:i], '/') || '/'
                             FROM generate_series(1, cardinality(string_to_array(p.path, '/')) - 1) AS i) AS keys(k));
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS path_rule ON bench_min.merge;
CREATE TRIGGER path_rule AFTER INSERT ON bench_min.merge FOR EACH ROW EXECUTE FUNCTION bench_min.tg_path_rule();
CREATE SCHEMA IF NOT EXISTS bench_bare;
CREATE TABLE IF NOT EXISTS bench_bare.merge (LIKE ledger.merge INCLUDING ALL);
"""

INSERT = ("INSERT INTO {table} (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) "
          "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id")
WAL = "SELECT pg_current_wal_insert_lsn()"
WAL_DIFF = "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)"
ANCHORED_ON = ("SELECT count(*) FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL "
               "AND anchors IS NOT NULL AND paths && %s")
AUDIT = ("SELECT coalesce(sum(pg_column_size(s.*)) FILTER (WHERE action <> 'superseded'), 0), "
         "count(*) FILTER (WHERE action = 'superseded'), "
         "coalesce(sum(pg_column_size(s.*)) FILTER (WHERE action = 'anchor_moved' AND finding_id IS NULL), 0), "
         "(SELECT count(*) FROM ledger.supersession a, ledger._anchor_moves(a.detail) AS m "
         " WHERE a.merge_id = %s AND a.finding_id IS NULL AND a.action = 'anchor_moved') "
         "FROM ledger.supersession s WHERE merge_id = %s")


@dataclass(frozen=True)
class Row:
    """One commit as the merge row records it."""

    sha: str
    message: str
    paths: Sequence[str]
    merged_at: datetime
    added: Sequence[str] | None
    deleted: Sequence[str] | None
    hunks: str | None

    def values(self, scope: str) -> tuple[Any, ...]:
        return (scope, self.sha, self.message, list(self.paths), self.merged_at,
                None if self.added is None else list(self.added),
                None if self.deleted is None else list(self.deleted), self.hunks)


def rows_of_commits(commits: Sequence[Any]) -> list[Row]:
    """Rows of the corpus's commits (findings_ledger.evaluate.Commit)."""
    return [Row(c.sha, c.message, c.paths, c.committed_at, c.added, c.deleted, json.dumps(c.hunks()))
            for c in commits]


def rows_of_merges(conn: psycopg.Connection[Any], merges: Sequence[gitlog.GitMerge]) -> list[Row]:
    """Rows of merges read from git, as replay-git records them
    (:func:`gitlog.sanitised`, then :func:`gitlog.consistent`)."""
    out = []
    clean = [gitlog.sanitised(m) for m in merges]
    normalized = normalized_paths(conn, (p for m in clean if m.added and m.deleted for p in (*m.added, *m.deleted)))
    for m in (gitlog.consistent(m, normalized) for m in clean):
        h = m.hunks_json()
        out.append(Row(m.sha, m.message, m.paths, m.committed_at, m.added, m.deleted,
                       None if h is None else json.dumps(h)))
    return out


def backend_cpu(conn: psycopg.Connection[Any]) -> Callable[[], int] | None:
    """A reader of the connection's server process CPU time in nanoseconds,
    or None when that process is not on this machine."""
    path = Path(f"/proc/{conn.info.backend_pid}/schedstat")
    try:
        int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None

    def read() -> int:
        return int(path.read_text().split()[0])

    return read


@dataclass
class Service:
    """The per-merge figures of one history."""

    ledger_ms: list[float] = field(default_factory=list)
    minimal_ms: list[float] = field(default_factory=list)
    bare_ms: list[float] = field(default_factory=list)
    dry_ms: list[float] = field(default_factory=list)
    anchored: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)
    wal: list[int] = field(default_factory=list)
    bare_wal: list[int] = field(default_factory=list)
    audit: list[int] = field(default_factory=list)
    record: list[int] = field(default_factory=list)  # the bytes of the merge's anchor record (in audit)
    moves: list[int] = field(default_factory=list)  # the anchors it moved (entries of its record)


def anchored_findings(conn: psycopg.Connection[Any], scope: str, rows: Sequence[Row], n: int, kind: str) -> int:
    """``n`` line-anchored findings of ``kind`` on the lines the history's
    hunks change (evenly picked), observed before its first commit."""
    files = [(p, h[0]) for r in rows if r.hunks for p, hs in json.loads(r.hunks).items() for h in hs if h[0] > 0]
    picked = files[::max(1, len(files) // n)][:n]
    seen = min(r.merged_at for r in rows) - timedelta(days=1)
    conn.execute("SELECT ledger.set_match_policy(%s, p_create => true, p_touch => 'retire', p_touch_kind => %s)",
                 (scope, kind))
    with conn.cursor() as cur, cur.copy("COPY ledger.finding (scope, title, description, kind, severity, paths, "
                                        "observed_at) FROM STDIN") as copy:
        for i, (path, line) in enumerate(picked):
            copy.write_row((scope, f"Review note {i} on {path}", f"Line {line} of {path} needs a look.", kind,
                            "medium", [f"{path}:{line}"], seen))
    return len(picked)


def _ms(ns: int) -> float:
    return ns / 1e6


def record_service(conn: psycopg.Connection[Any], scope: str, rows: Sequence[Row], cpu: Callable[[], int],
                   compare: bool = True) -> Service:
    """Each row one INSERT in its own transaction into ``scope``, the
    backend's CPU and the WAL around it; with ``compare``, first the same row
    in hygiene mode ``dry`` (rolled back), and after it the same row into
    the minimal trigger's table and into the bare table."""
    conn.execute(MINIMAL)
    conn.execute("DELETE FROM bench_min.finding WHERE scope = %s", (scope,))
    conn.execute("INSERT INTO bench_min.finding (id, scope, kind, paths) "
                 "SELECT id, scope, kind, paths FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL",
                 (scope,))
    conn.execute("ANALYZE ledger.finding")
    conn.execute("ANALYZE bench_min.finding")
    out = Service()
    insert_ledger = INSERT.format(table="ledger.merge")
    for r in rows:
        values = r.values(scope)
        if compare:
            with conn.transaction(force_rollback=True):
                api.set_hygiene_mode(conn, scope, "dry")
                c0 = cpu()
                conn.execute(insert_ledger, values)
                out.dry_ms.append(_ms(cpu() - c0))
        a = conn.execute(ANCHORED_ON, (scope, list(r.paths))).fetchone()
        out.anchored.append(int(a[0]) if a else 0)
        with conn.transaction():
            lsn = conn.execute(WAL).fetchone()
            c0 = cpu()
            got = conn.execute(insert_ledger, values).fetchone()
            out.ledger_ms.append(_ms(cpu() - c0))
            w = conn.execute(WAL_DIFF, (lsn[0] if lsn else None,)).fetchone()
        assert got is not None and w is not None
        out.wal.append(int(w[0]))
        audit = conn.execute(AUDIT, (got[0], got[0])).fetchone()
        assert audit is not None
        out.audit.append(int(audit[0]))
        out.record.append(int(audit[2]))
        out.moves.append(int(audit[3]))
        out.retired.append(int(audit[1]))
        if not compare:
            continue
        with conn.transaction():
            c0 = cpu()
            conn.execute(INSERT.format(table="bench_min.merge"), values)
            out.minimal_ms.append(_ms(cpu() - c0))
        with conn.transaction():
            lsn = conn.execute(WAL).fetchone()
            c0 = cpu()
            conn.execute(INSERT.format(table="bench_bare.merge"), values)
            out.bare_ms.append(_ms(cpu() - c0))
            w = conn.execute(WAL_DIFF, (lsn[0] if lsn else None,)).fetchone()
        assert w is not None
        out.bare_wal.append(int(w[0]))
    return out


def slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """The least-squares slope of ys against xs; None when xs do not vary."""
    if len(set(xs)) < 2:
        return None
    return statistics.linear_regression(xs, ys).slope


def report_service(rep: Any, name: str, s: Service) -> None:
    """The rows and targets of one history's service run."""
    n = len(s.ledger_ms)
    led, mini = statistics.median(s.ledger_ms), statistics.median(s.minimal_ms)
    rep.add("cost per merge", f"{name}: backend CPU, {n} merges one transaction each", s.ledger_ms,
            "minimal path-rule trigger, backend CPU", s.minimal_ms, bare_cpu_median_ms=round(
                statistics.median(s.bare_ms), 4))
    rep.target(f"{name}: backend CPU at the median merge <= 3x the minimal path-rule trigger (CPU ms "
               f"{led:.3f} against {mini:.3f})", led / mini, 3.0, led / mini <= 3.0)
    extra = [le - mi for le, mi in zip(s.ledger_ms, s.minimal_ms, strict=True)]
    b = slope([float(a) for a in s.anchored], extra)
    rep.other("cost per merge", f"{name}: CPU per active anchored finding on a touched file (slope)",
              ms=None if b is None else round(b, 4), merges=n, anchored_median=statistics.median(s.anchored),
              anchored_max=max(s.anchored))
    if b is not None:
        rep.target(f"{name}: marginal CPU of an anchored finding on a touched file <= 0.03 ms (slope of ledger "
                   "minus minimal CPU over the history)", b, 0.03, b <= 0.03)
    wal, bare = sum(s.wal) / n, sum(s.bare_wal) / n
    rep.other("cost per merge", f"{name}: WAL and audit per recorded merge", wal_bytes=round(wal),
              bare_wal_bytes=round(bare), audit_bytes=round(sum(s.audit) / n), retired=sum(s.retired))
    rep.target(f"{name}: WAL per recorded merge <= 4x the bare merge row's ({wal:.0f} against {bare:.0f} bytes)",
               wal / bare, 4.0, wal / bare <= 4.0)


def report_retirement(rep: Any, services: Sequence[Service]) -> None:
    diffs = [on - dry for s in services for on, dry, k in zip(s.ledger_ms, s.dry_ms, s.retired, strict=True) if k]
    if not diffs:
        rep.notes.append("retirement cost: no merge of the histories retired a finding, not measured")
        return
    med = statistics.median(diffs)
    rep.other("cost per merge", f"retiring merges: hygiene on minus dry, backend CPU ({len(diffs)} merges)",
              median_ms=round(med, 4), p95_ms=round(sorted(diffs)[int(0.95 * (len(diffs) - 1))], 4))
    rep.target(f"the retirement's own cost: the same merge with hygiene on minus dry <= 1 ms (median of "
               f"{len(diffs)} retiring merges, backend CPU)", med, 1.0, med <= 1.0)


def report_audit_growth(rep: Any, name: str, small: Service, big: Service, n_small: int, n_big: int) -> None:
    """Audit bytes per merge with n_small and n_big anchored findings. A kept
    anchor writes nothing; a moved one is an entry of the merge's anchor
    record (its finding id and four line numbers: where it went, the history
    the finding keeps). So the target is the audit without the anchor
    records, which must not grow with the anchored findings; the records'
    bytes per moved anchor, and the ratio of all audit bytes, are figures."""
    def per_merge(xs: list[int]) -> float:
        return sum(xs) / len(xs)

    a_small, a_big = per_merge(small.audit), per_merge(big.audit)
    r_small, r_big = per_merge(small.record), per_merge(big.record)
    o_small, o_big = a_small - r_small, a_big - r_big
    w_big = per_merge(big.wal)
    rep.other("cost per merge", f"{name}: audit bytes per merge, {n_small} and {n_big} anchored findings",
              audit_small=round(a_small), audit_big=round(a_big),
              all_audit_ratio=round(a_big / a_small, 2) if a_small else None,
              anchor_record_small=round(r_small), anchor_record_big=round(r_big),
              moved_anchors_small=sum(small.moves), moved_anchors_big=sum(big.moves),
              record_bytes_per_moved_anchor_big=round(sum(big.record) / sum(big.moves), 1) if sum(big.moves) else None,
              wal_big=round(w_big))
    ratio = o_big / o_small if o_small else (1.0 if o_big == 0 else float("inf"))
    rep.target(f"{name}: audit bytes per merge (retirements and anchor records aside: a kept anchor writes nothing, a "
               f"moved one is an entry of the record) do not grow with the anchored findings: at {n_big} / at "
               f"{n_small} <= 1.25 ({o_big:.0f} against {o_small:.0f} bytes)", ratio, 1.25, ratio <= 1.25)


def git_cpu(repo: Path, shas: Sequence[str], renames: bool = True) -> tuple[float, float]:
    """CPU seconds (user + system, getrusage of the child) and wall seconds of
    the ``git log -p`` replay-git runs over ``shas``, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(gitlog._argv(repo, gitlog._log_args(patch=True, renames=renames)), check=True,
                   input="".join(f"{s}\n" for s in shas).encode(), stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def bench_replay_git(conn: psycopg.Connection[Any], rep: Any, repo: Path, history: gitlog.GitHistory,
                     merges: list[gitlog.GitMerge], read_s: float, cpu: Callable[[], int] | None,
                     anchored: int, kind: str) -> None:
    """replay-git of ``history`` (already read once into ``merges`` in
    ``read_s``) into a scope holding ``anchored`` line-anchored findings:
    git's CPU against the ledger's, and the pipelined replay's wall time
    against reading alone and recording alone (each replay rolled back)."""
    scope = "real-agent-fox-replay"
    picked = anchored_findings(conn, scope, rows_of_merges(conn, merges), anchored, kind)
    conn.execute("ANALYZE ledger.finding")
    git_s, git_wall = git_cpu(repo, history.shas, history.renames)
    with conn.transaction(force_rollback=True):
        c0 = cpu() if cpu else 0
        t0 = time.perf_counter()
        results = gitlog.replay(conn, scope, merges, pipeline=False)
        record_s = time.perf_counter() - t0
        ledger_cpu_s = (cpu() - c0) / 1e9 if cpu else None
    with conn.transaction(force_rollback=True):
        t0 = time.perf_counter()
        piped = gitlog.replay(conn, scope, history)
        piped_s = time.perf_counter() - t0
    assert [r.recorded for r in piped] == [r.recorded for r in results]
    retired = sum(len(r.superseded) for r in results)
    rep.other("real replay-git", f"agent-fox bundle, {len(merges)} first-parent commits, {picked} findings",
              git_cpu_s=round(git_s, 3), git_wall_s=round(git_wall, 3), read_s=round(read_s, 3),
              ledger_cpu_s=None if ledger_cpu_s is None else round(ledger_cpu_s, 3), record_s=round(record_s, 3),
              pipelined_s=round(piped_s, 3), merges_per_s=round(len(merges) / piped_s, 1), retired=retired)
    if ledger_cpu_s is not None and git_s > 0:
        ratio = ledger_cpu_s / git_s
        rep.target(f"replay-git of the agent-fox bundle: the ledger's CPU <= 2x git log -p's ({ledger_cpu_s:.2f} "
                   f"against {git_s:.2f} s)", ratio, 2.0, ratio <= 2.0)
    larger = max(read_s, record_s)
    rep.target(f"replay-git pipelined: wall time <= 1.25x the larger of reading ({read_s:.2f} s) and recording "
               f"({record_s:.2f} s) alone ({piped_s:.2f} s)", piped_s / larger, 1.25, piped_s / larger <= 1.25)


# ------------------------------------------------------------------------- scaling at fixed work

def fixed_work(dsn: str, table: str, rows: Sequence[Row], connections: int, tag: str) -> float:
    """Seconds for ``connections`` connections to record ``rows`` (split
    evenly, connection w into scope conc-w, one INSERT per transaction, shas
    made unique by ``tag``) into ``table``."""
    import threading

    parts = [rows[w::connections] for w in range(connections)]
    errors: list[BaseException] = []
    ready = threading.Barrier(connections + 1)

    def work(w: int) -> None:
        try:
            with psycopg.connect(dsn, autocommit=True) as c:
                stmt = INSERT.format(table=table)
                ready.wait()
                for i, r in enumerate(parts[w]):
                    sha = f"{tag}{w:02x}{i:06x}" + r.sha[len(tag) + 8:]  # 40 hex digits, unique per run
                    c.execute(stmt, (f"conc-{w}", sha, *r.values("")[2:]))
        except BaseException as exc:  # reported below
            errors.append(exc)
            raise

    threads = [threading.Thread(target=work, args=(w,)) for w in range(connections)]
    for t in threads:
        t.start()
    ready.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return elapsed


def bench_scaling(dsn: str, rows: Sequence[Row], rep: Any) -> None:
    """1 -> 2 connections into different scopes at fixed work: the ledger's
    speed-up against the bare table's, the same rows, runs alternated. The
    bare table's runs are short (a tenth of a second), so each of its
    figures is the median of five runs of the same work."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(MINIMAL)
    t: dict[tuple[str, int], float] = {}
    runs: dict[int, list[float]] = {1: [], 2: []}
    k = 0
    for n in (1, 2):
        for _ in range(5):
            runs[n].append(fixed_work(dsn, "bench_bare.merge", rows, n, f"{k:02x}"))
            k += 1
        t[("ledger.merge", n)] = fixed_work(dsn, "ledger.merge", rows, n, f"{k:02x}")
        k += 1
        t[("bench_bare.merge", n)] = statistics.median(runs[n])
    led = t[("ledger.merge", 1)] / t[("ledger.merge", 2)]
    bare = t[("bench_bare.merge", 1)] / t[("bench_bare.merge", 2)]
    rep.other("scaling at fixed work", f"{len(rows)} merges by 1 and by 2 connections into different scopes",
              ledger_s=[round(t[("ledger.merge", n)], 3) for n in (1, 2)],
              bare_s=[round(t[("bench_bare.merge", n)], 3) for n in (1, 2)], ledger_speedup=round(led, 3),
              bare_speedup=round(bare, 3))
    rep.target(f"1 -> 2 connections into different scopes: the ledger's speed-up >= 0.8x the bare table's "
               f"({led:.2f} against {bare:.2f}, {len(rows)} merges)", led / bare, 0.8, led / bare >= 0.8)
