"""The benchmark of real work (``bench/run.py --only real --only prompt``): what users do,
on the real histories of ``../shared/corpus``, each figure against a
baseline measured in the same run.

* recording each repository's history (its commits as they are: messages,
  paths, added, deleted, hunks) by one COPY and by ``record_merges`` into a
  scope holding the repository's corpus findings plus a few hundred
  line-anchored findings on the files the history touches, against the same
  rows into a bare copy of ``ledger.merge``;
* the merges of that replay one at a time, split into those that decide
  nothing and those that retire one finding, with the retiring merge's time
  by function (``pg_stat_xact_user_functions``: this transaction's calls,
  self and total time; ``track_functions = all``);
* ``replay-git`` of the agent-fox bundle: git's time (reading the history)
  against the ledger's (recording it);
* the prompt read (``read_prompt_findings`` with a 4,000-character budget,
  with a kind filter, ``count(*)`` of ``active_finding``) at 1,000, 100,000
  and 1,000,000 active findings in one scope;
* 1, 2, 4 and 8 connections recording real merges into one scope and into
  eight scopes: merges/s and errors.

The corpus is read where CI has it (``../shared/corpus`` next to the
checkout, ``LEDGER_CORPUS`` to override); without it the section says so and
measures the prompt read only.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import costs  # bench/costs.py, beside this script
import psycopg
from psycopg.types.json import Jsonb

from findings_ledger import folds, gitlog
from findings_ledger.evaluate import Commit, Corpus, CorpusError, load_corpus
from findings_ledger.merges import _merge_json as merge_json
from findings_ledger.merges import record_merges

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("LEDGER_CORPUS", ROOT.parent / "shared" / "corpus"))
BUNDLE = "agent-fox-dev__agent-fox-v2/repo.bundle"
COPY_MERGES = "COPY {table} (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) FROM STDIN"
ANCHORED = 300  # line-anchored findings per scope on the files the history touches
# their kind: drift (the default path_supersede_kinds; the scope's touch mode for it is set to retire, so
# a hunk over the line retires it: the shipped mode, flag, retires nothing) or, e.g., review (the line rule
# only records a candidate; the anchors are kept or moved)
ANCHOR_KIND = os.environ.get("LEDGER_BENCH_ANCHOR_KIND", "drift")
# only these repositories of the corpus (owner/name, comma-separated); default every one
REPOS = [r for r in os.environ.get("LEDGER_BENCH_REPOS", "").split(",") if r]
#: The revision whose read_prompt_findings is the "before" figure (a window over every candidate):
#: one release 0.2.0 folded away, read from its archive (migrations/replaced/0.2.0.tar.xz).
BEFORE_REVISION = "0003_decisions_on_real_histories"
SEVERITIES = ["critical", "high", "medium", "low", "info"]


def _ms(t0: int) -> float:
    return (time.perf_counter_ns() - t0) / 1e6


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def _rows(scope: str, commits: list[Commit]) -> list[tuple[Any, ...]]:
    return [(scope, c.sha, c.message, c.paths, c.committed_at, c.added, c.deleted, json.dumps(c.hunks()))
            for c in commits]


def _copy(conn: psycopg.Connection[Any], table: str, rows: list[tuple[Any, ...]]) -> None:
    with conn.cursor() as cur, cur.copy(COPY_MERGES.format(table=table)) as copy:
        for r in rows:
            copy.write_row(r)


def _merge_dicts(commits: list[Commit]) -> list[dict[str, Any]]:
    return [{"commit_sha": c.sha, "message": c.message, "paths": c.paths, "merged_at": c.committed_at,
             "added": c.added, "deleted": c.deleted, "hunks": c.hunks()} for c in commits]


def _bare_record_merges(conn: psycopg.Connection[Any], scope: str, merges: list[dict[str, Any]]) -> None:
    """The bare side of record_merges: the same JSON array in one statement,
    unpacked into the bare table."""
    conn.execute(
        "INSERT INTO bench_bare.merge (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) "
        "SELECT %s, m ->> 'commit_sha', m ->> 'message', ARRAY(SELECT jsonb_array_elements_text(m -> 'paths')), "
        "(m ->> 'merged_at')::timestamptz, ARRAY(SELECT jsonb_array_elements_text(m -> 'added')), "
        "ARRAY(SELECT jsonb_array_elements_text(m -> 'deleted')), m -> 'hunks' "
        "FROM jsonb_array_elements(%s) AS m",
        (scope, Jsonb([merge_json(m) for m in merges])))


def _findings(conn: psycopg.Connection[Any], scope: str, corpus: Corpus, anchored: int = ANCHORED) -> int:
    """The corpus's findings of one repository (as written, keys and
    keywords included) plus ``anchored`` (ANCHORED) line-anchored findings on the files its
    hunks touch: what a scope of a reviewed repository holds."""
    n = 0
    for f in corpus.findings:
        try:
            with conn.transaction():
                conn.execute(
                    "INSERT INTO ledger.finding (scope, title, description, kind, paths, finding_key, slug, "
                    "strong_keywords, observed_at, expects, source) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, "
                    "%s, %s)", (scope, f.title, f.description, f.kind, f.ledger_paths(), f.key, f.slug,
                                list(f.strong_keywords), f.observed_at, f.expects, f"corpus:{f.id}"))
            n += 1
        except psycopg.Error:
            continue  # a corpus finding the ledger refuses (keywords it rejects): evaluate handles those
    files = [(c.old_path or c.path, h[0]) for cm in corpus.commits for c in cm.changes for h in c.hunks if h[0] > 0]
    step = max(1, len(files) // anchored)
    picked = files[::step][:anchored]
    # observed before the history starts, so that any of its merges may retire them
    seen = min(c.committed_at for c in corpus.commits) - timedelta(days=1)
    conn.execute("SELECT ledger.set_match_policy(%s, p_create => true, p_touch => 'retire', p_touch_kind => %s)",
                 (scope, ANCHOR_KIND))
    with conn.cursor() as cur, cur.copy("COPY ledger.finding (scope, title, description, kind, severity, paths, "
                                        "observed_at) FROM STDIN") as copy:
        for i, (path, line) in enumerate(picked):
            copy.write_row((scope, f"Review note {i} on {path}", f"Line {line} of {path} needs a look.",
                            ANCHOR_KIND, SEVERITIES[i % 5], [f"{path}:{line}"], seen))
    return n + len(picked)


def _retired_by(conn: psycopg.Connection[Any], merge_id: int) -> int:
    row = conn.execute("SELECT count(*) FROM ledger.supersession WHERE merge_id = %s AND action = 'superseded'",
                       (merge_id,)).fetchone()
    return int(row[0]) if row else 0


XACT_FUNCTIONS = ("SELECT schemaname || '.' || funcname, calls, total_time, self_time "
                  "FROM pg_stat_xact_user_functions WHERE schemaname = 'ledger'")


def _xact_functions(conn: psycopg.Connection[Any]) -> dict[str, tuple[int, float, float]]:
    return {r[0]: (int(r[1]), float(r[2]), float(r[3])) for r in conn.execute(XACT_FUNCTIONS)}


def bench_corpus(conn: psycopg.Connection[Any], corpora: list[Corpus], rep: Any) -> None:
    """Recording every repository's real history: COPY and record_merges
    against the same into the bare table (each in a transaction rolled back,
    the two sides alternated), then the same merges one at a time with the
    per-merge split and the retiring merge's profile."""
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_bare")
    conn.execute("CREATE TABLE IF NOT EXISTS bench_bare.merge (LIKE ledger.merge INCLUDING ALL)")
    conn.execute("SET track_functions = 'all'")
    totals = {"copy": [0.0, 0.0], "record_merges": [0.0, 0.0]}
    merges_total = 0
    nothing: list[float] = []
    retiring: list[float] = []
    prof_retiring: dict[str, list[float]] = {}
    prof_nothing: dict[str, list[float]] = {}
    n_retiring = n_nothing = 0
    for corpus in corpora:
        scope = "real-" + corpus.repository.replace("/", "-")
        held = _findings(conn, scope, corpus)
        commits = list(corpus.commits)
        rows = _rows(scope, commits)
        dicts = _merge_dicts(commits)
        conn.execute("ANALYZE ledger.finding")
        for way, bare, ledger in (
                ("copy", lambda: _copy(conn, "bench_bare.merge", rows), lambda: _copy(conn, "ledger.merge", rows)),
                ("record_merges", lambda: _bare_record_merges(conn, scope, dicts),
                 lambda: record_merges(conn, scope, dicts))):
            with conn.transaction(force_rollback=True):
                t0 = time.perf_counter_ns()
                bare()
                b = _ms(t0)
            with conn.transaction(force_rollback=True):
                t0 = time.perf_counter_ns()
                ledger()
                t = _ms(t0)
                retired = conn.execute("SELECT count(*) FROM ledger.supersession WHERE scope = %s "
                                       "AND action = 'superseded'", (scope,)).fetchone()
            totals[way][0] += t
            totals[way][1] += b
            rep.add("real history", f"{corpus.repository}: {way}, {len(rows)} commits, {held} findings", [t],
                    "same rows into the bare table", [b], merges=len(rows),
                    merges_per_s=round(len(rows) / (t / 1000), 1), retired=retired[0] if retired else None)
        merges_total += len(rows)
        # one at a time: the split by what a merge decides, and the functions it runs
        with conn.transaction(force_rollback=True):
            for c in commits:
                before = _xact_functions(conn)
                t0 = time.perf_counter_ns()
                row = conn.execute(
                    "INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                    (scope, c.sha, c.message, c.paths, c.committed_at, c.added, c.deleted,
                     json.dumps(c.hunks()))).fetchone()
                t = _ms(t0)
                assert row is not None
                after = _xact_functions(conn)
                k = _retired_by(conn, row[0])
                if k not in (0, 1):
                    continue
                (retiring if k else nothing).append(t)
                prof = prof_retiring if k else prof_nothing
                if k:
                    n_retiring += 1
                else:
                    n_nothing += 1
                for name, (calls, total, self_) in after.items():
                    c0, t0_, s0 = before.get(name, (0, 0.0, 0.0))
                    if calls > c0:
                        acc = prof.setdefault(name, [0.0, 0.0, 0.0])
                        acc[0] += calls - c0
                        acc[1] += total - t0_
                        acc[2] += self_ - s0
    for way, (t, b) in totals.items():
        ratio = t / b if b else float("inf")
        rep.add("real history", f"all repositories: {way}, {merges_total} commits", [t],
                "same rows into the bare table", [b], merges=merges_total,
                merges_per_s=round(merges_total / (t / 1000), 1))
        rep.other("real history", f"all repositories: {way} against the bare table", ratio=round(ratio, 3))
    if nothing and retiring:
        rn = rep.add("real merge", f"decides nothing ({len(nothing)} merges, one INSERT each)", nothing)
        rr = rep.add("real merge", f"retires one finding ({len(retiring)} merges, one INSERT each)", retiring,
                     "a merge that decides nothing", nothing)
        rr["minus_nothing_ms"] = round(rr["median_ms"] - rn["median_ms"], 4)
    for label, prof, n in (("real merge that retires one finding", prof_retiring, n_retiring),
                           ("real merge that decides nothing", prof_nothing, n_nothing)):
        if not n:
            continue
        rep.profiles[f"{label} (per merge, mean of {n})"] = [
            {"function": name, "language": "", "set": "", "calls": round(v[0] / n, 2),
             "total_ms": round(v[1] / n, 4), "self_ms": round(v[2] / n, 4)}
            for name, v in sorted(prof.items(), key=lambda kv: -kv[1][2])][:25]


@dataclass
class Fox:
    """The agent-fox bundle cloned, its history listed and read once."""

    repo: Path
    history: gitlog.GitHistory
    merges: list[gitlog.GitMerge]
    read_s: float


def read_agent_fox(tmp: Path, limit: int | None) -> Fox | None:
    """Clone the agent-fox bundle into ``tmp`` and read its first-parent
    history (the last ``limit`` commits when given): the time of reading,
    git and its parsing, is ``read_s``."""
    bundle = CORPUS / BUNDLE
    if not bundle.exists():
        return None
    repo = tmp / "agent-fox"
    subprocess.run(["git", "clone", "--quiet", "--branch", "develop-line", str(bundle), str(repo)], check=True)
    history = gitlog.read_merges(repo, f"HEAD~{limit}..HEAD") if limit else gitlog.read_merges(repo)
    t0 = time.perf_counter()
    merges = list(history)
    return Fox(repo, history, merges, time.perf_counter() - t0)


# ------------------------------------------------------------------------- prompt read

LOAD_PROMPT = """
INSERT INTO ledger.finding (scope, title, kind, severity, paths, description, last_reported_at)
SELECT 'prompt', 'Finding ' || g || ' about the loader and its cache',
       CASE WHEN g %% 3 = 0 THEN 'drift' ELSE 'review' END,
       (ARRAY['critical','high','medium','low','info'])[1 + g %% 5],
       ARRAY['src/pkg' || (g %% 211) || '/file' || g || '.py'],
       'The loader reads file ' || g || ' twice; the second read should come from the cache.',
       CASE WHEN g %% 10 = 0 THEN now() - (g %% 1000) * interval '1 minute' END
  FROM generate_series(%s::bigint + 1, %s::bigint) AS g
"""
PROMPT = ("SELECT included_count, omitted_count FROM ledger.read_prompt_findings('prompt', p_max_chars => 4000)")
PROMPT_KIND = ("SELECT included_count, omitted_count FROM ledger.read_prompt_findings('prompt', "
               "p_kinds => ARRAY['drift'], p_max_chars => 4000)")
BEFORE = ("SELECT included_count, omitted_count FROM bench_before.read_prompt_findings('prompt', "
          "p_max_chars => 4000)")
COUNT = "SELECT count(*) FROM ledger.active_finding"


def _load_prompt(conn: psycopg.Connection[Any], start: int, stop: int) -> None:
    """Findings start+1..stop in scope 'prompt', written without triggers
    (session_replication_role = replica: generated values, already in normal
    form); the scope's totals row is what the insert trigger would have
    appended."""
    with conn.transaction():
        conn.execute("INSERT INTO ledger.scope (scope) VALUES ('prompt') ON CONFLICT DO NOTHING")
        row = conn.execute("SELECT coalesce(max(id), 0) FROM ledger.finding").fetchone()
        assert row is not None
        conn.execute("SET LOCAL session_replication_role = replica")
        conn.execute(LOAD_PROMPT, (start, stop))
        conn.execute("SET LOCAL session_replication_role = origin")
        conn.execute("INSERT INTO ledger.scope_active_total (scope, findings, chars) "
                     "SELECT 'prompt', count(*), sum(length(title) + coalesce(1 + length(description), 0)) "
                     "FROM ledger.finding WHERE scope = 'prompt' AND id > %s", (row[0],))
    conn.execute("VACUUM ANALYZE ledger.finding")


def _samples(conn: psycopg.Connection[Any], stmt: str, n: int, warm: bool = True) -> list[float]:
    if warm:
        conn.execute(stmt)  # warm-up (plans cached)
    out = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        conn.execute(stmt).fetchall()
        out.append(_ms(t0))
    return out


def _server_ms(conn: psycopg.Connection[Any], stmt: str, n: int) -> float:
    """Mean time per call of read_prompt_findings inside the server
    (pg_stat_xact_user_functions of one transaction of n calls): the
    figure without the client's round trip and its wait for a core."""
    conn.execute("SET track_functions = 'all'")
    with conn.transaction(force_rollback=True):
        for _ in range(n):
            conn.execute(stmt).fetchall()
        row = conn.execute("SELECT total_time / calls FROM pg_stat_xact_user_functions "
                           "WHERE schemaname = 'ledger' AND funcname = 'read_prompt_findings'").fetchone()
    return round(float(row[0]), 3) if row else float("nan")


SERVER_TIMES = """
CREATE OR REPLACE FUNCTION bench_before.prompt_times(n integer) RETURNS double precision[]
LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz;
    out double precision[] := '{}';
BEGIN
    PERFORM * FROM ledger.read_prompt_findings('prompt', p_max_chars => 4000);  -- warm-up
    FOR i IN 1..n LOOP
        t0 := clock_timestamp();
        PERFORM * FROM ledger.read_prompt_findings('prompt', p_max_chars => 4000);
        out := out || 1000 * extract(epoch FROM clock_timestamp() - t0)::double precision;
    END LOOP;
    RETURN out;
END $$
"""


def _server_times(conn: psycopg.Connection[Any], n: int) -> list[float]:
    """Milliseconds of each of ``n`` calls of the prompt read measured
    inside the server: ``clock_timestamp()`` around each call in one
    PL/pgSQL loop (bench_before.prompt_times), no round trip in them."""
    conn.execute(SERVER_TIMES)
    row = conn.execute("SELECT bench_before.prompt_times(%s)", (n,)).fetchone()
    assert row is not None
    return [float(x) for x in row[0]]


def _install_before(conn: psycopg.Connection[Any]) -> None:
    """The read as it was (a window over every candidate), as
    bench_before.read_prompt_findings: the 'before' figure of the same run."""
    src = folds.frozen_file(BEFORE_REVISION, "functions/read_prompt_findings.sql", ROOT / "migrations")
    src = src.replace("FUNCTION ledger.read_prompt_findings(", "FUNCTION bench_before.read_prompt_findings(")
    conn.execute("CREATE SCHEMA IF NOT EXISTS bench_before")
    conn.execute(src)


def bench_prompt(conn: psycopg.Connection[Any], sizes: list[int], samples: int, rep: Any) -> None:
    """The prompt read at each size (findings added between the sizes). The
    message-evidence GIN index is dropped first: no read here uses it, and
    its expression would make the load of 1,000,000 findings minutes long."""
    _install_before(conn)
    conn.execute("DROP INDEX IF EXISTS ledger.finding_active_evidence_idx")
    loaded = 0
    medians: dict[int, dict[str, Any]] = {}
    for n in sizes:
        _load_prompt(conn, loaded, n)
        loaded = n
        row = rep.add("prompt read", f"read_prompt_findings, budget 4000, {n:,} active findings",
                      _samples(conn, PROMPT, samples), server_ms=_server_ms(conn, PROMPT, 50))
        medians[n] = row
        rep.add("prompt read", f"with a kind filter (a count over the scope), {n:,} active findings",
                _samples(conn, PROMPT_KIND, max(3, samples // 20 if n > 100_000 else samples // 4)))
        rep.add("prompt read", f"count(*) FROM active_finding, {n:,} active findings",
                _samples(conn, COUNT, 5 if n > 100_000 else 20))
        rep.add("prompt read", f"before: a window over every candidate, {n:,} active findings",
                _samples(conn, BEFORE, 20 if n <= 10_000 else 3 if n <= 100_000 else 1, warm=n <= 100_000),
                "read_prompt_findings now",
                _samples(conn, PROMPT, 20))
    small, big = medians[min(sizes)], medians[max(sizes)]
    inside = _server_times(conn, max(200, 5 * samples))
    p95_in = _p95(inside)
    rep.add("prompt read", f"inside the server (clock_timestamp() around each call), {max(sizes):,} active findings",
            inside, client_p95_ms=big["p95_ms"], client_median_ms=big["median_ms"])
    rep.target(f"prompt read at {max(sizes):,} active findings: p95 inside the server <= 5 ms (client p95 "
               f"{big['p95_ms']:.3f} ms)", p95_in, 5.0, p95_in <= 5.0)
    ratio = big["median_ms"] / small["median_ms"]
    rep.target(f"prompt read scale-free: median at {max(sizes):,} / at {min(sizes):,} <= 1.3", ratio, 1.3,
               ratio <= 1.3)


# ------------------------------------------------------------------------- concurrency

def bench_concurrency(dsn: str, corpus: Corpus, seconds: float, rep: Any) -> None:
    """N connections (1, 2, 4, 8), each recording the repository's real
    merges one INSERT per transaction (its own commit shas: the worker's
    number in the first digits), into one scope or into eight scopes (worker
    i into scope i % 8), each scope holding the repository's findings.
    merges/s over the whole run and the errors (any exception)."""
    commits = list(corpus.commits)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for s in range(8):
            _findings(conn, f"conc-{s}", corpus)
        conn.execute("ANALYZE ledger.finding")
    rates: dict[tuple[str, int], float] = {}
    for layout in ("one scope", "eight scopes"):
        for n in (1, 2, 4, 8):
            counts = [0] * n
            errors = [0] * n
            stop = time.perf_counter() + seconds
            run = f"{layout[0]}{n}"

            def work(w: int) -> None:
                scope = "conc-0" if layout == "one scope" else f"conc-{w % 8}"
                with psycopg.connect(dsn, autocommit=True) as c:
                    i = 0
                    while time.perf_counter() < stop:
                        cm = commits[i % len(commits)]
                        sha = f"{w:02x}{ord(run[0]):02x}{n:02x}{i:06x}" + cm.sha[12:]
                        i += 1
                        try:
                            c.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at, "
                                      "added, deleted, hunks) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                                      (scope, sha, cm.message, cm.paths, cm.committed_at, cm.added, cm.deleted,
                                       json.dumps(cm.hunks())))
                            counts[w] += 1
                        except psycopg.Error:
                            errors[w] += 1

            t0 = time.perf_counter()
            threads = [threading.Thread(target=work, args=(w,)) for w in range(n)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - t0
            rate = sum(counts) / elapsed
            rates[(layout, n)] = rate
            rep.other("real concurrency", f"{n} connections into {layout}", merges_per_s=round(rate, 1),
                      merges=sum(counts), errors=sum(errors))
    r1, r2 = rates[("eight scopes", 1)], rates[("eight scopes", 2)]
    rep.other("real concurrency", "1 -> 2 connections into eight scopes, for a fixed time", ratio=round(r2 / r1, 3))


def bench_prompt_section(server: str, migrated_database: Callable[[str, str], str], prefix: str, quick: bool,
                         rep: Any) -> None:
    dsn = migrated_database(server, f"{prefix}_prompt")
    with psycopg.connect(dsn, autocommit=True) as conn:
        bench_prompt(conn, [1_000, 10_000] if quick else [1_000, 100_000, 1_000_000], 30 if quick else 200, rep)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {prefix}_prompt WITH (FORCE)")


def bench_real_section(server: str, migrated_database: Callable[[str, str], str], prefix: str, quick: bool,
                       rep: Any) -> None:
    try:
        corpora = load_corpus(CORPUS, REPOS)
    except CorpusError as exc:
        rep.notes.append(f"real work: corpus not available ({exc}), not measured")
        return
    if quick:
        corpora = [c.head(20) for c in corpora]
    viper = next((c for c in corpora if c.repository.endswith("viper")), corpora[0])
    dsn = migrated_database(server, f"{prefix}_real")
    with tempfile.TemporaryDirectory(prefix="ledger-bench-") as tmp, psycopg.connect(dsn, autocommit=True) as conn:
        bench_corpus(conn, corpora, rep)
        fox = read_agent_fox(Path(tmp), 25 if quick else None)
        if fox is None:
            rep.notes.append(f"agent-fox: {CORPUS / BUNDLE} absent, its history and replay-git not measured")
        cpu = costs.backend_cpu(conn)
        if cpu is None:
            rep.notes.append("cost per merge: the server process is not on this machine (no /proc/<pid>/schedstat), "
                             "backend CPU not measured")
        else:
            bench_costs(conn, cpu, viper, fox, quick, rep)
        if fox is not None:
            costs.bench_replay_git(conn, rep, fox.repo, fox.history, fox.merges, fox.read_s, cpu, ANCHORED,
                                   ANCHOR_KIND)
    bench_concurrency(dsn, viper, 0.25 if quick else 2.0, rep)
    rows = costs.rows_of_commits(viper.commits)
    costs.bench_scaling(dsn, (rows * 4)[: 40 if quick else 600], rep)


def bench_costs(conn: psycopg.Connection[Any], cpu: Callable[[], int], viper: Corpus, fox: Fox | None, quick: bool,
                rep: Any) -> None:
    """Per merge in a service, viper's and agent-fox's histories (bench/costs.py)."""
    services = []
    s = costs.record_service(conn, "cost-viper", _rows_with_findings(conn, "cost-viper", viper), cpu)
    costs.report_service(rep, viper.repository, s)
    services.append(s)
    if fox is not None:
        rows = costs.rows_of_merges(conn, fox.merges)
        costs.anchored_findings(conn, "cost-agent-fox", rows, ANCHORED, ANCHOR_KIND)
        f = costs.record_service(conn, "cost-agent-fox", rows, cpu)
        costs.report_service(rep, "agent-fox", f)
        services.append(f)
    costs.report_retirement(rep, services)
    big = 10 * ANCHORED
    b = costs.record_service(conn, "cost-viper-big", _rows_with_findings(conn, "cost-viper-big", viper, big), cpu,
                             compare=False)
    costs.report_audit_growth(rep, viper.repository, s, b, ANCHORED, big)


def _rows_with_findings(conn: psycopg.Connection[Any], scope: str, corpus: Corpus,
                        anchored: int = ANCHORED) -> list[costs.Row]:
    _findings(conn, scope, corpus, anchored)
    return costs.rows_of_commits(corpus.commits)
