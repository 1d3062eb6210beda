"""Failover (docs/scaling.md, "Failover"): a primary with a synchronous streaming standby,
both made with the project's cluster tooling (findings_ledger.testing.cluster), a mixed load,
the primary's postmaster killed with SIGKILL and the standby promoted.

The clients know both servers from one libpq DSN list (``host=127.0.0.1,127.0.0.1
port=P,S target_session_attrs=read-write``) and recover by themselves
(findings_ledger.reconnect.connect_retrying): each resumes from what the new primary holds and
finishes its quota. Then:

* every row whose commit a client saw acknowledged is on the new primary, per kind of row
  (merges, findings, file-state answers, recheck claims and verdicts, task claims and
  completions), counted acknowledged vs found;
* nothing was done twice: each merge and finding once, each task dispatched once and completed,
  each recheck request answered once, each superseded finding superseded once;
* the audit agrees with the findings: every superseded finding has its ``superseded`` audit row;
* replay-git (the CLI, on a small real git history built here, given the DSN list) was blocked
  mid-run at the kill, reconnected and recorded every commit exactly once;
* the NOTIFY listener, reconnected and caught up from the audit, has seen every event.

Two more cases, each on its own pair: a COPY of merges cut by the failover (mid-COPY, or its
COMMIT flushed on the standby but unacknowledged) is on the new primary whole or not at all, and
its redelivery records every merge once; a recheck answer sent on a connection to the dead
primary applies nothing, and given again through the DSN list is a no-op (another answer: LD103).

The clusters are this test's own (ports LEDGER_FAILOVER_PGPORT and the next one, else
LEDGER_PGPORT + 101 and + 102, else 54347 and 54348, in
/tmp/findings-ledger-failover-<uid>.<port>), removed at the end.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.reconnect import connect_retrying, connection_lost
from findings_ledger.testing import cluster

BIN = Path(sys.executable).parent
CLI = str(BIN / "findings-ledger")
DB = "failover"
RECONNECT_SECONDS = 60.0
OLD = datetime(2026, 1, 1, tzinfo=timezone.utc)
N_MERGES, N_FINDINGS, N_CHECKED, N_RECHECKS, N_TASKS, N_COMMITS = 40, 60, 30, 30, 30, 300
SPAN = 3.0  # seconds a writer's quota takes at least (its items paced): every writer is mid-run at the kill
KILL_AFTER = 1.5  # seconds of load before the kill


def pace(quota: int) -> None:
    time.sleep(SPAN / quota)


def failover_ports() -> tuple[int, int]:
    """LEDGER_FAILOVER_PGPORT and the next port, else LEDGER_PGPORT + 101 and + 102, else 54347 and 54348."""
    raw = os.environ.get("LEDGER_FAILOVER_PGPORT", "").strip()
    if raw:
        return int(raw), int(raw) + 1
    main = os.environ.get(cluster.PORT_ENV, "").strip()
    if main.isdigit() and int(main) + 102 <= 65535:
        return int(main) + 101, int(main) + 102
    return 54347, 54348


def test_the_failover_ports_follow_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEDGER_FAILOVER_PGPORT", raising=False)
    monkeypatch.setenv(cluster.PORT_ENV, "54335")
    assert failover_ports() == (54436, 54437)
    monkeypatch.setenv("LEDGER_FAILOVER_PGPORT", "54418")
    assert failover_ports() == (54418, 54419)


@dataclass
class Pair:
    primary: cluster.Cluster
    standby: cluster.Cluster

    def dsn_list(self, **extra: str) -> str:
        """The clients' DSN: both servers, the one that takes writes."""
        words = {"host": "127.0.0.1,127.0.0.1", "port": f"{self.primary.port},{self.standby.port}",
                 "user": "postgres", "dbname": DB, "target_session_attrs": "read-write", "connect_timeout": "2",
                 **extra}
        return " ".join(f"{k}={v}" for k, v in words.items())


def _remove(c: cluster.Cluster) -> None:
    try:
        cluster.stop_cluster(c, mode="immediate")
    except cluster.ClusterError:
        pass
    shutil.rmtree(c.base, ignore_errors=True)


@pytest.fixture
def pair() -> Iterator[Pair]:
    """A migrated primary (synchronous_commit on) and its synchronous standby, seeded."""
    p_port, s_port = failover_ports()
    uid = os.geteuid()
    primary = cluster.Cluster(base=Path(f"/tmp/findings-ledger-failover-{uid}.{p_port}"), port=p_port)
    standby = cluster.Cluster(base=Path(f"/tmp/findings-ledger-failover-{uid}.{s_port}"), port=s_port)
    for c in (primary, standby):
        _remove(c)  # a killed run's leftovers
    try:
        cluster.ensure_cluster(primary, settings={"synchronous_commit": "on"})
        cluster.ensure_database(primary.dsn(), DB)
        fl.migrate(primary.dsn(DB))
        with psycopg.connect(primary.dsn(DB), autocommit=True) as conn:
            seed(conn)
        cluster.create_standby(primary, standby, name="standby", settings={"synchronous_commit": "on"})
        cluster.require_synchronous_standby(primary, "standby")
        yield Pair(primary, standby)
    finally:
        for c in (primary, standby):
            _remove(c)


def seed(conn: psycopg.Connection[Any]) -> None:
    """The rows the load works on: drift findings the merges retire, checked findings whose
    file-state requests are open, review findings with open recheck requests, queued tasks."""
    retire_drift_on_touch(conn, "fo-merge")
    for i in range(N_MERGES):
        fl.add_finding(conn, "fo-merge", f"m{i} still wrong", paths=[f"m/{i}.py"], kind="drift", observed_at=OLD)
    fl.set_hygiene_mode(conn, "fo-check", "on", create=True)
    for i in range(N_CHECKED):
        fl.add_finding(conn, "fo-check", f"c{i} has a TODO", paths=[f"c/{i}.py"], kind="drift", observed_at=OLD,
                       resolved_when={"all": [{"file_lacks": {"path": f"c/{i}.py", "pattern": "TODO"}}]})
        fl.record_merge(conn, "fo-check", f"c0{i:06x}", [f"c/{i}.py"], merged_at=OLD + timedelta(days=1))
    fl.set_match_policy(conn, "fo-recheck", create=True, touch="recheck", path_supersede_kinds=["*"])
    for i in range(N_RECHECKS):
        fl.add_finding(conn, "fo-recheck", f"r{i} may be fixed", paths=[f"r/{i}.py"], observed_at=OLD)
        fl.record_merge(conn, "fo-recheck", f"d0{i:06x}", [f"r/{i}.py"], merged_at=OLD + timedelta(days=1))
    for i in range(N_TASKS):
        issue = fl.add_issue(conn, "fo-tasks", f"issue {i}", description="do it")
        fl.enqueue_task(conn, issue.id, "agent-fo", "rt-fo")
    fl.set_hygiene_mode(conn, "fo-find", "on", create=True)
    fl.set_hygiene_mode(conn, "fo-git", "on", create=True)
    assert len(fl.pending_file_states(conn, "fo-check")) == N_CHECKED
    assert conn.execute("SELECT count(*) FROM ledger.recheck_request").fetchone() == (N_RECHECKS,)


def build_history(repo: Path, commits: int) -> list[str]:
    """A real git repository of ``commits`` first-parent commits (git fast-import), each changing
    one of 20 files; returns the shas, oldest first."""
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    stream = []
    for n in range(1, commits + 1):
        message = f"change {n}\n"
        text = f"version {n}\n"
        stream.append(f"commit refs/heads/main\nmark :{n}\ncommitter T <t@example.invalid> {1750000000 + n} +0000\n"
                      f"data {len(message)}\n{message}" + (f"from :{n - 1}\n" if n > 1 else "")
                      + f"M 100644 inline g/{n % 20}.py\ndata {len(text)}\n{text}\n")
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input="".join(stream).encode(), check=True,
                   env=env)
    out = subprocess.run(["git", "-C", str(repo), "rev-list", "--reverse", "main"], check=True, env=env,
                         capture_output=True, text=True).stdout
    return out.split()


@dataclass
class Client:
    """One client of the load: what it saw acknowledged, what was in doubt, when it lost the
    server and when it had it back."""

    name: str
    acked: dict[str, list[tuple[Any, float]]] = field(default_factory=lambda: defaultdict(list))
    in_doubt: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))
    lost_at: float | None = None
    back_at: float | None = None
    done_at: float | None = None
    error: BaseException | None = None
    work: int = 0

    def ack(self, kind: str, key: Any) -> None:
        self.acked[kind].append((key, time.monotonic()))


def run_client(client: Client, dsn: str, body: Callable[[psycopg.Connection[Any], Client, bool], bool]) -> None:
    """Call ``body(conn, client, resumed)`` until it returns True (its quota done); when the
    connection is lost, reconnect to the DSN list and call it again with ``resumed`` True (it
    reads what the database holds and goes on)."""
    try:
        conn = psycopg.connect(dsn, autocommit=True)
        resumed = False
        while True:
            try:
                if body(conn, client, resumed):
                    break
                resumed = False
            except psycopg.OperationalError as exc:
                if not connection_lost(conn, exc):
                    raise
                conn.close()
                client.lost_at = client.lost_at or time.monotonic()
                conn = connect_retrying(dsn, timeout=RECONNECT_SECONDS)
                client.back_at = client.back_at or time.monotonic()
                resumed = True
        client.done_at = time.monotonic()
        conn.close()
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        client.error = exc


# Each body does one item per call (one transaction, autocommit) and returns True when its quota
# is done; ``resumed`` says the previous call lost its connection (its item is in doubt).

def merges_body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
    i = c.work
    if i == N_MERGES:
        return True
    sha = f"e0{i:06x}"
    if resumed:
        c.in_doubt["merge"].append(sha)  # redelivered below: a recorded one is not recorded twice
    fl.record_merge(conn, "fo-merge", sha, [f"m/{i}.py"], message=f"fix m{i}")
    c.ack("merge", sha)
    c.work += 1
    pace(N_MERGES)
    return False


def findings_body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
    i = c.work
    if i == N_FINDINGS:
        return True
    key = f"K{i:03d}"
    if resumed:
        c.in_doubt["finding"].append(key)
        if conn.execute("SELECT 1 FROM ledger.finding WHERE scope = 'fo-find' AND finding_key = %s",
                        (key,)).fetchone():
            c.work += 1  # it did commit: not added again
            return False
    fl.add_finding(conn, "fo-find", f"finding {key}", finding_key=key, paths=[f"f/{i}.py"])
    c.ack("finding", key)
    c.work += 1
    pace(N_FINDINGS)
    return False


def file_states_body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
    pending = fl.pending_file_states(conn, "fo-check")
    if not pending:
        return True
    p = pending[0]
    if resumed:
        c.in_doubt["file-state answer"].append(p.merge_id)
    fl.record_file_states(conn, p.merge_id, {path: "clean\n" for path in p.paths})  # idempotent
    c.ack("file-state answer", p.merge_id)
    pace(N_CHECKED)
    return False


def rechecks_body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
    mine = [r[0] for r in conn.execute(
        "SELECT id FROM ledger.recheck_request WHERE verifier = 'v-fo' AND answered_at IS NULL ORDER BY id")]
    if resumed:
        c.in_doubt["recheck claim"].extend(mine)
    if not mine:
        claimed = fl.claim_rechecks(conn, "fo-recheck", "v-fo", max=2)
        if not claimed:
            return True
        for r in claimed:
            c.ack("recheck claim", r.id)
        mine = [r.id for r in claimed]
    for rid in mine:
        fl.answer_recheck(conn, rid, rid % 2 == 0, f"looked at request {rid}", verifier="v-fo")  # idempotent
        c.ack("recheck verdict", rid)
        pace(N_RECHECKS)
    return False


def tasks_body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
    open_tasks = conn.execute("SELECT id, status FROM ledger.agent_task WHERE runtime_id = 'rt-fo' "
                              "AND status IN ('dispatched', 'running') ORDER BY id").fetchall()
    if resumed:
        c.in_doubt["task claim"].extend(t for t, _ in open_tasks)
    if not open_tasks:
        claim = fl.claim_task(conn, "rt-fo")
        if claim is None:
            return True
        c.ack("task claim", claim.task_id)
        open_tasks = [(claim.task_id, "dispatched")]
    for task_id, status in open_tasks:
        if status == "dispatched":
            fl.start_task(conn, task_id, session_id=f"sess-{task_id}")
        fl.complete_task(conn, task_id)
        c.ack("task completion", task_id)
        pace(N_TASKS)
    return False


def prompt_reader(stop: threading.Event) -> Callable[[psycopg.Connection[Any], Client, bool], bool]:
    def body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
        if stop.is_set():
            return True
        fl.read_prompt_findings(conn, "fo-merge")
        c.work += 1
        time.sleep(0.02)
        return False
    return body


def listener(stop: threading.Event, seen: dict[int, str]) -> Callable[[psycopg.Connection[Any], Client, bool], bool]:
    """LISTEN on the channel; after a reconnect, LISTEN again and catch up from the audit (a
    notification is not kept across a failover: the audit is), and once more at the end.
    ``seen``: audit id -> how it was seen (notify, catch-up)."""
    state = {"listening": False}

    def catch_up(conn: psycopg.Connection[Any]) -> None:
        ids = [r[0] for r in conn.execute("SELECT id FROM ledger.supersession") if r[0] not in seen]
        for (audit_id,) in conn.execute("SELECT audit_id FROM ledger.read_finding_events(%s)", (ids,)):
            seen.setdefault(audit_id, "catch-up")

    def body(conn: psycopg.Connection[Any], c: Client, resumed: bool) -> bool:
        if resumed or not state["listening"]:
            fl.listen_findings(conn)
            state["listening"] = True
            catch_up(conn)
        stopping = stop.is_set()
        for event in fl.finding_events(conn, timeout=0.2):
            seen.setdefault(event.audit_id, "notify")
        if stopping:
            catch_up(conn)
        return stopping
    return body


@pytest.mark.stress
def test_failover_under_load_loses_nothing_acknowledged(pair: Pair, tmp_path: Path) -> None:
    started = time.monotonic()
    shas = build_history(tmp_path / "repo", N_COMMITS)
    dsn = pair.dsn_list()
    stop_readers = threading.Event()
    seen_events: dict[int, str] = {}
    writers = {
        "merges": merges_body, "findings": findings_body, "file-state answers": file_states_body,
        "rechecks": rechecks_body, "task claims": tasks_body,
    }
    readers = {"prompt reads": prompt_reader(stop_readers), "listener": listener(stop_readers, seen_events)}
    clients = {name: Client(name) for name in [*writers, *readers]}
    threads = [threading.Thread(target=run_client, args=(clients[name], dsn, body))
               for name, body in [*writers.items(), *readers.items()]]
    replay = subprocess.Popen(
        [CLI, "replay-git", "--dsn", pair.dsn_list(application_name="fo-replay"), str(tmp_path / "repo"),
         "--scope", "fo-git", "--batch-size", "5", "--reconnect-timeout", str(RECONNECT_SECONDS)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # replay-git records a few batches, then waits on the scope's row (the foreign key check of
    # its next batch): it is mid-run, its batch uncommitted, when the primary dies
    blocker = psycopg.connect(pair.primary.dsn(DB))
    deadline = time.monotonic() + 60
    while blocker.execute("SELECT count(*) FROM ledger.merge WHERE scope = 'fo-git'").fetchone()[0] < 10:  # type: ignore[index]
        blocker.rollback()
        assert time.monotonic() < deadline and replay.poll() is None, "replay-git did not start recording"
        time.sleep(0.02)
    blocker.execute("SELECT 1 FROM ledger.scope WHERE scope = 'fo-git' FOR UPDATE")
    while not blocker.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'fo-replay' "
                              "AND wait_event_type = 'Lock'").fetchone()[0]:  # type: ignore[index]
        assert time.monotonic() < deadline and replay.poll() is None, "replay-git finished before the kill"
        time.sleep(0.02)

    for t in threads:
        t.start()
    time.sleep(KILL_AFTER)  # the writers are mid-run: each quota takes SPAN seconds at least
    killed_at = time.monotonic()
    cluster.kill_postmaster(pair.primary)
    cluster.promote(pair.standby)
    promoted_at = time.monotonic()
    blocker.close()

    for name in writers:
        threads[list(clients).index(name)].join(120)
    try:
        out, err = replay.communicate(timeout=120)
    finally:
        replay.kill()
    stop_readers.set()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    errors = {c.name: repr(c.error) for c in clients.values() if c.error is not None}
    assert errors == {}
    assert [c.name for c in clients.values() if c.lost_at is None] == [], "clients the kill did not reach"

    # replay-git: blocked mid-run, reconnected, every commit recorded once
    assert replay.returncode == 0, err
    assert "reconnected after" in err, err
    counts = re.search(r"(\d+) merges recorded, (\d+) already recorded", out)
    assert counts, out
    recorded, already = int(counts[1]), int(counts[2])
    assert recorded + already == N_COMMITS, out

    new = pair.standby.dsn(DB)
    with psycopg.connect(new, autocommit=True) as conn:
        assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (False,)
        present = {
            "merge": {r[0] for r in conn.execute("SELECT commit_sha FROM ledger.merge WHERE scope = 'fo-merge'")},
            "finding": {r[0] for r in conn.execute(
                "SELECT finding_key FROM ledger.finding WHERE scope = 'fo-find'")},
            "file-state answer": {r[0] for r in conn.execute(
                "SELECT merge_id FROM ledger.file_state_request WHERE answered_at IS NOT NULL")},
            "recheck claim": {r[0] for r in conn.execute(
                "SELECT id FROM ledger.recheck_request WHERE verifier = 'v-fo'")},
            "recheck verdict": {r[0] for r in conn.execute(
                "SELECT id FROM ledger.recheck_request WHERE answered_at IS NOT NULL")},
            "task claim": {r[0] for r in conn.execute(
                "SELECT id FROM ledger.agent_task WHERE dispatch_count > 0")},
            "task completion": {r[0] for r in conn.execute(
                "SELECT id FROM ledger.agent_task WHERE status = 'completed'")},
        }
        report = [f"\nfailover: kill -9 of the primary's postmaster, standby promoted in "
                  f"{promoted_at - killed_at:.2f} s; whole test {time.monotonic() - started:.1f} s",
                  f"{'kind of row':<18} {'acked before kill':>17} {'found':>6} {'acked in all':>12} {'found':>6} "
                  f"{'in doubt':>8}"]
        for kind, found in present.items():
            acked = [(k, t) for c in clients.values() for k, t in c.acked.get(kind, [])]
            before = {k for k, t in acked if t < killed_at}
            every = {k for k, _ in acked}
            doubt = {k for c in clients.values() for k in c.in_doubt.get(kind, [])}
            report.append(f"{kind:<18} {len(before):>17} {len(before & found):>6} {len(every):>12} "
                          f"{len(every & found):>6} {len(doubt):>8}")
            assert every <= found, (kind, sorted(every - found)[:5])
        git = {r[0] for r in conn.execute("SELECT commit_sha FROM ledger.merge WHERE scope = 'fo-git'")}
        report.append(f"{'replay-git merges':<18} {'':>17} {'':>6} {N_COMMITS:>12} {len(git & set(shas)):>6}")
        for c in clients.values():
            lost = f"lost at +{c.lost_at - killed_at:.2f} s" if c.lost_at else "never lost"
            back = f"reconnected {c.back_at - killed_at:.2f} s after the kill" if c.back_at else ""
            done = f"done {c.done_at - killed_at:+.2f} s" if c.done_at else ""
            report.append(f"  client {c.name:<20} {lost}, {back}, {done}".replace(", ,", ","))
        report.append("  replay-git: " + "; ".join(line for line in err.splitlines() if "warning" in line))
        report.append("  replay-git: " + out.strip())
        print("\n".join(report))

        # nothing done twice, every quota finished
        assert git == set(shas)
        assert present["merge"] == {f"e0{i:06x}" for i in range(N_MERGES)}
        assert len(present["finding"]) == N_FINDINGS
        assert conn.execute("SELECT max(report_count) FROM ledger.finding WHERE scope = 'fo-find'").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM ledger.file_state_request WHERE answered_at IS NULL"
                            ).fetchone() == (0,)
        assert conn.execute("SELECT count(*), count(*) FILTER (WHERE answered_at IS NOT NULL) "
                            "FROM ledger.recheck_request").fetchone() == (N_RECHECKS, N_RECHECKS)
        assert conn.execute("SELECT count(*) FROM ledger.supersession WHERE action IN ('superseded', 'recheck_kept') "
                            "AND scope = 'fo-recheck'").fetchone() == (N_RECHECKS,)
        assert conn.execute("SELECT count(*), min(dispatch_count), max(dispatch_count), "
                            "count(*) FILTER (WHERE status = 'completed') FROM ledger.agent_task"
                            ).fetchone() == (N_TASKS, 1, 1, N_TASKS)
        # the audit agrees with the findings
        assert conn.execute(
            "SELECT count(*) FROM ledger.finding f WHERE f.superseded_at IS NOT NULL AND f.dismissed_at IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM ledger.supersession a WHERE a.finding_id = f.id "
            "AND a.action = 'superseded' AND a.merge_id IS NOT DISTINCT FROM f.superseded_by_merge_id)"
        ).fetchone() == (0,)
        assert conn.execute(
            "SELECT count(*) FROM (SELECT finding_id FROM ledger.supersession WHERE action = 'superseded' "
            "GROUP BY finding_id HAVING count(*) > 1) twice").fetchone() == (0,)
        retired = conn.execute("SELECT scope, count(*) FROM ledger.finding WHERE superseded_at IS NOT NULL "
                               "GROUP BY scope ORDER BY scope").fetchall()
        assert dict(retired) == {"fo-check": N_CHECKED, "fo-merge": N_MERGES, "fo-recheck": N_RECHECKS // 2}
        # the listener saw every event the new primary's audit holds
        ids = [r[0] for r in conn.execute("SELECT id FROM ledger.supersession")]
        events = {r[0] for r in conn.execute("SELECT audit_id FROM ledger.read_finding_events(%s)", (ids,))}
        assert events <= set(seen_events), sorted(events - set(seen_events))[:5]
        how = [seen_events[i] for i in events]
        print(f"  listener: {len(events)} events, {how.count('notify')} by NOTIFY, "
              f"{how.count('catch-up')} by catching up from the audit after the reconnect and at the end")
    assert clients["prompt reads"].work > 0
    assert time.monotonic() - started < 90


COPY_SQL = "COPY ledger.merge (scope, commit_sha, message, paths) FROM STDIN"
N_COPY = 300  # merges in the COPY batch
COPY_EVERY = 10  # every tenth merge of the batch retires a drift finding seeded for it


def copy_batch() -> list[tuple[str, str, str, list[str]]]:
    """The batch: N_COPY merges of scope fo-copy (full shas), each touching its own path. The
    messages are padded so the batch leaves the client in several chunks (psycopg sends COPY
    data 32 KiB at a time): the server has part of it while the client still writes."""
    return [("fo-copy", f"c0{i:038x}", f"copy merge {i}\n\n" + "x" * 400, [f"cp/{i}.py"]) for i in range(N_COPY)]


def redeliver(conn: psycopg.Connection[Any], batch: list[tuple[str, str, str, list[str]]]) -> int:
    """Send ``batch`` again as a service redelivers merges (docs/sql.md, "Merges are recorded
    once"): COPY it into a temporary table, then one ``INSERT ... SELECT ... ON CONFLICT
    (scope, commit_sha) DO NOTHING`` in the batch's order, in one transaction. Returns the
    merges recorded (a merge the scope holds is skipped)."""
    with conn.transaction():
        conn.execute("CREATE TEMP TABLE batch (ord int, scope text, commit_sha text, message text, paths text[]) "
                     "ON COMMIT DROP")
        with conn.cursor() as cur, cur.copy("COPY batch FROM STDIN") as copy:
            for n, row in enumerate(batch):
                copy.write_row((n, *row))
        return conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths) "
                            "SELECT scope, commit_sha, message, paths FROM batch ORDER BY ord "
                            "ON CONFLICT (scope, commit_sha) DO NOTHING").rowcount


def copy_state(conn: psycopg.Connection[Any]) -> tuple[int, int, int]:
    """Scope fo-copy: (merges, superseded audit rows citing one of its merges, findings retired)."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM ledger.merge WHERE scope = 'fo-copy'), "
        "(SELECT count(*) FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id "
        " WHERE a.scope = 'fo-copy' AND a.action = 'superseded'), "
        "(SELECT count(*) FROM ledger.finding WHERE scope = 'fo-copy' AND superseded_at IS NOT NULL)").fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def wait_for(what: str, check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"not seen in {timeout:g} s: {what}"
        time.sleep(0.01)


@pytest.mark.stress
@pytest.mark.stress_only  # a primary and standby pair per case: CI's make test-stress runs them
@pytest.mark.parametrize(("kill_at", "outcome"), [("mid-copy", "none"), ("commit-unacknowledged", "all")])
def test_a_copy_of_merges_cut_by_the_failover_is_whole_or_absent_and_redelivered_once(
        pair: Pair, kill_at: str, outcome: str) -> None:
    """A COPY of N_COPY merges in one transaction, the primary killed before its commit is
    acknowledged: ``mid-copy`` (the server has inserted part of the rows, the client still
    writes: the transaction never commits) or ``commit-unacknowledged`` (the COPY ended, the
    COMMIT is written on the primary and streamed to the standby, which flushed it, but the
    primary never acknowledged it: its synchronous standby is renamed away first, so the commit
    waits). The promoted standby holds the whole batch with its audit rows, or none of it; the
    client, reconnected through the DSN list, sends the batch again (and once more) and the scope
    ends with every merge once and every finding superseded once."""
    started = time.monotonic()
    batch = copy_batch()
    with psycopg.connect(pair.primary.dsn(DB), autocommit=True) as conn:
        retire_drift_on_touch(conn, "fo-copy")
        for i in range(0, N_COPY, COPY_EVERY):
            fl.add_finding(conn, "fo-copy", f"cp{i} still wrong", paths=[f"cp/{i}.py"], kind="drift", observed_at=OLD)
    dsn = pair.dsn_list(application_name="fo-copy")
    client = psycopg.connect(dsn)  # one transaction: the COPY and its COMMIT
    watch = psycopg.connect(pair.primary.dsn(DB), autocommit=True)

    def copied() -> bool:
        row = watch.execute("SELECT tuples_processed FROM pg_stat_progress_copy p JOIN pg_stat_activity a "
                            "USING (pid) WHERE a.application_name = 'fo-copy'").fetchone()
        return row is not None and row[0] > 0

    def failover() -> float:
        killed_at = time.monotonic()
        cluster.kill_postmaster(pair.primary)
        cluster.promote(pair.standby)
        return time.monotonic() - killed_at

    lost: list[BaseException] = []
    if kill_at == "mid-copy":
        with pytest.raises(psycopg.OperationalError) as raised:
            with client.cursor() as cur, cur.copy(COPY_SQL) as copy:
                for row in batch[:N_COPY // 2]:
                    copy.write_row(row)
                wait_for("the primary inserting the first rows of the COPY", copied)
                promote_seconds = failover()
                for row in batch[N_COPY // 2:]:
                    copy.write_row(row)
            client.commit()
        lost.append(raised.value)
    else:
        with client.cursor() as cur, cur.copy(COPY_SQL) as copy:
            for row in batch:
                copy.write_row(row)
        watch.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
        watch.execute("SELECT pg_reload_conf()")
        wait_for("the standby no longer synchronous", lambda: watch.execute(
            "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'").fetchone() == ("async",))

        def commit() -> None:
            try:
                client.commit()
            except BaseException as exc:  # noqa: BLE001 - asserted below
                lost.append(exc)
        committer = threading.Thread(target=commit)
        committer.start()
        wait_for("the COMMIT waiting for a synchronous standby, its WAL flushed on the standby", lambda: watch.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = 'fo-copy' "
            "AND wait_event = 'SyncRep') AND (SELECT flush_lsn >= pg_current_wal_insert_lsn() "
            "FROM pg_stat_replication WHERE application_name = 'standby')").fetchone() == (True,))
        promote_seconds = failover()
        committer.join(30)
        assert not committer.is_alive()
    watch.close()
    assert len(lost) == 1 and isinstance(lost[0], psycopg.OperationalError), lost
    assert connection_lost(client, lost[0]), lost[0]  # a connection error: the commit was never acknowledged
    client.close()

    retired = N_COPY // COPY_EVERY
    conn = connect_retrying(dsn, timeout=RECONNECT_SECONDS)
    try:
        assert conn.execute("SELECT inet_server_port(), pg_is_in_recovery()").fetchone() == (pair.standby.port, False)
        after_failover = copy_state(conn)
        assert after_failover == {"none": (0, 0, 0), "all": (N_COPY, retired, retired)}[outcome]
        first = redeliver(conn, batch)
        again = redeliver(conn, batch)
        assert (first, again) == ({"none": N_COPY, "all": 0}[outcome], 0)
        assert copy_state(conn) == (N_COPY, retired, retired)
        rows = conn.execute("SELECT commit_sha, message, paths FROM ledger.merge WHERE scope = 'fo-copy' ORDER BY id")
        assert [(sha, message, paths) for sha, message, paths in rows] == [row[1:] for row in batch]
        assert conn.execute(
            "SELECT count(*) FROM (SELECT finding_id FROM ledger.supersession WHERE scope = 'fo-copy' "
            "AND action = 'superseded' GROUP BY finding_id HAVING count(*) > 1) twice").fetchone() == (0,)
    finally:
        conn.close()
    print(f"\ncopy of {N_COPY} merges, killed {kill_at}: new primary held {outcome} of it "
          f"{after_failover}, redelivery recorded {first} then {again}; promoted in {promote_seconds:.2f} s, "
          f"test {time.monotonic() - started:.1f} s")
    assert time.monotonic() - started < 30


def recheck_audit(conn: psycopg.Connection[Any], ids: list[int]) -> dict[int, list[tuple[str, str | None]]]:
    """The audit rows of each recheck request (its finding and merge): (action, actor), in order."""
    rows = conn.execute(
        "SELECT r.id, a.action, a.actor FROM ledger.recheck_request r JOIN ledger.supersession a "
        "ON a.finding_id = r.finding_id AND a.merge_id = r.merge_id WHERE r.id = ANY(%s) ORDER BY r.id, a.id",
        (ids,))
    audit: dict[int, list[tuple[str, str | None]]] = {rid: [] for rid in ids}
    for rid, action, actor in rows:
        audit[rid].append((action, actor))
    return audit


@pytest.mark.stress
@pytest.mark.stress_only  # a primary and standby pair: CI's make test-stress runs it
def test_a_recheck_answered_before_the_failover_is_refused_on_the_stale_connection_and_not_applied_twice(
        pair: Pair) -> None:
    """A verifier claims two recheck requests and answers the first on the primary
    (acknowledged: the synchronous standby has it). The primary is killed and the standby
    promoted. On the verifier's connection to the old primary every answer fails with a
    connection error and nothing is applied; reconnected through the DSN list, the same answer
    again is a no-op (one audit row, not two), another answer is refused (LD103), and the second
    request is answered once."""
    started = time.monotonic()
    stale = psycopg.connect(pair.primary.dsn(DB), autocommit=True)  # the old primary itself, not the DSN list
    first, second = (r.id for r in fl.claim_rechecks(stale, "fo-recheck", "v-stale", max=2))
    evidence = f"fixed: request {first}"
    answered = fl.answer_recheck(stale, first, True, evidence, verifier="v-stale")
    assert answered.outcome == "resolved"
    before = recheck_audit(stale, [first, second])
    assert [action for action, actor in before[first] if actor == "v-stale"] == ["superseded"]
    assert [action for action, actor in before[second] if actor == "v-stale"] == []

    killed_at = time.monotonic()
    cluster.kill_postmaster(pair.primary)
    cluster.promote(pair.standby)
    promote_seconds = time.monotonic() - killed_at
    for rid, resolved in ((first, True), (first, False), (second, False)):
        with pytest.raises(psycopg.OperationalError) as raised:
            fl.answer_recheck(stale, rid, resolved, evidence if rid == first else "still wrong", verifier="v-stale")
        assert connection_lost(stale, raised.value), raised.value
    stale.close()

    conn = connect_retrying(pair.dsn_list(), timeout=RECONNECT_SECONDS)
    try:
        assert conn.execute("SELECT inet_server_port(), pg_is_in_recovery()").fetchone() == (pair.standby.port, False)
        # what the acknowledged answer wrote is there, and nothing the stale connection sent
        assert recheck_audit(conn, [first, second]) == before
        assert conn.execute("SELECT id, verifier, answered_at IS NOT NULL, resolved, outcome "
                            "FROM ledger.recheck_request WHERE id = ANY(%s) ORDER BY id",
                            ([first, second],)).fetchall() == [
            (first, "v-stale", True, True, "resolved"), (second, "v-stale", False, None, None)]
        # the same answer again: a no-op; another answer: refused, nothing written
        again = fl.answer_recheck(conn, first, True, evidence, verifier="v-stale")
        assert (again.answered_at, again.resolved, again.outcome) == (answered.answered_at, True, "resolved")
        with pytest.raises(fl.LeaseInvalid) as refused:
            fl.answer_recheck(conn, first, False, evidence, verifier="v-stale")
        assert refused.value.sqlstate == "LD103"
        with pytest.raises(fl.LeaseInvalid):
            fl.answer_recheck(conn, first, True, "another evidence", verifier="v-stale")
        # the request the stale connection could not answer is answered once
        kept = fl.answer_recheck(conn, second, False, "still wrong", verifier="v-stale")
        assert kept.outcome == "kept"
        fl.answer_recheck(conn, second, False, "still wrong", verifier="v-stale")
        after = recheck_audit(conn, [first, second])  # per request: the merge's touch, then one answer
        assert after == {first: [("recheck_requested", None), ("superseded", "v-stale")],
                         second: [("recheck_requested", None), ("recheck_kept", "v-stale")]}
        assert conn.execute("SELECT count(*) FROM ledger.supersession a JOIN ledger.recheck_request r "
                            "ON r.finding_id = a.finding_id WHERE r.id = %s AND a.action = 'superseded'",
                            (first,)).fetchone() == (1,)
    finally:
        conn.close()
    print(f"\nrecheck {first} answered before the failover, {second} after it: audit {after}; "
          f"promoted in {promote_seconds:.2f} s, test {time.monotonic() - started:.1f} s")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("verb", ["replay-git", "import-findings", "migrate", "active"])
def test_a_dsn_list_with_every_server_down_is_one_error_line(tmp_path: Path, verb: str) -> None:
    """No server of the list up: one ``error:`` line, exit 1, nothing on stdout (and nothing
    written anywhere: there is nowhere to write); the reconnect loop is only for a connection
    lost mid-run."""
    build_history(tmp_path / "repo", 3)
    (tmp_path / "findings").mkdir()
    (tmp_path / "findings" / "2026-01-01-loader.md").write_text("---\ntitle: The loader\n---\nIt reads twice.\n")
    args = {"replay-git": [str(tmp_path / "repo"), "--scope", "s"],
            "import-findings": [str(tmp_path / "findings"), "--scope", "s"], "migrate": [], "active": ["s"]}[verb]
    dead = Pair(cluster.Cluster(tmp_path / "a", _free_port()), cluster.Cluster(tmp_path / "b", _free_port()))
    started = time.monotonic()
    proc = subprocess.run([CLI, verb, *args, "--dsn", dead.dsn_list()], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach PostgreSQL"), proc.stderr
    assert str(dead.primary.port) in lines[0] and str(dead.standby.port) in lines[0]  # both were tried
    assert time.monotonic() - started < 30  # at once: no reconnect loop before anything was done


def test_connect_retrying_tries_for_the_time_it_is_given(tmp_path: Path) -> None:
    dead = Pair(cluster.Cluster(tmp_path / "a", _free_port()), cluster.Cluster(tmp_path / "b", _free_port()))
    for timeout, least, most in ((0.0, 0.0, 3.0), (1.0, 0.7, 5.0)):
        started = time.monotonic()
        with pytest.raises(psycopg.OperationalError, match="Connection refused"):
            connect_retrying(dead.dsn_list(), timeout=timeout)
        assert least <= time.monotonic() - started < most


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
