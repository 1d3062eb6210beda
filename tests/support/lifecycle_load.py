"""Lifecycle transitions racing merges, and the audit-replay check.

Workers (one autocommit connection each: every call is its own transaction)
run, against the same two scopes and the same finding keys:

* as ledger_writer: merges touching overlapping paths, some naming a finding
  key with a resolution verb ("Fixes K-3"), some reverting an earlier merge
  of the scope ("This reverts commit <sha>."); re-reports
  (ledger.report_finding: new, duplicate, reopened, still_dismissed);
  re-reviews of a random subset of the keys (ledger.replace_findings);
* as ledger_admin: dismissals and restores of random findings.

A dismissal of a dismissed finding or a restore of an active one is a
legitimate answer to a race (LD302, InvalidTransition) and is counted;
every other error a caller sees, a deadlock (40P01) or a serialization
failure (40001) above all, fails the test.

check_audit_replay() then needs no model of who saw what: every
state-changing audit row (superseded, reopened, dismissed, restored) is
written while its transaction holds the finding's row lock, so one
finding's such rows, in audit id order, are its history in commit order.
Replaying that history through the lifecycle state machine must be legal at
every step and end in the state, supersession columns and counters the
finding has; the counts of dismissals, restores, re-report reopens and
re-review supersessions must equal what the callers saw committed.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import psycopg

import findings_ledger as fl

SCOPES = ("race-0", "race-1")
KEYS = [f"K-{i}" for i in range(12)]
FILES = ("src/a.py", "src/b.py", "src/c/d.py", "lib/x.py", "lib/y/z.py")
DIRS = ("src/", "src/c/", "lib/")
STATE_CHANGES = ("superseded", "reopened", "dismissed", "restored")


@dataclass
class Report:
    """What one worker's callers saw committed."""

    ops: Counter[str] = field(default_factory=Counter)
    dismissed: int = 0
    restored: int = 0
    rereport_reopened: int = 0
    rereview_superseded: int = 0
    rereview_reopened: int = 0
    invalid_transitions: int = 0
    errors: list[str] = field(default_factory=list)


def seed(conn: psycopg.Connection[Any]) -> None:
    """Every key reported once in each scope, kind drift (the path rule
    supersedes it), with one or two overlapping paths."""
    rnd = random.Random(0)
    for scope in SCOPES:
        fl.set_hygiene_mode(conn, scope, "on", create=True)
        fl.set_match_policy(conn, scope, touch="retire", touch_kind="drift")  # the path rule as such
        for key in KEYS:
            fl.report_finding(conn, scope, key, f"{key} is stale", paths=rnd.sample(FILES + DIRS, 2), kind="drift")


def worker(dsn: str, number: int, seconds: float, report: Report) -> None:
    rnd = random.Random(1000 + number)
    admin = number % 4 == 3  # two of eight workers are admins
    shas: dict[str, list[str]] = defaultdict(list)
    counter = 0
    deadline = time.monotonic() + seconds
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET ROLE ledger_admin" if admin else "SET ROLE ledger_writer")
        while time.monotonic() < deadline:
            counter += 1
            scope = rnd.choice(SCOPES)
            op = rnd.choice(["dismiss", "restore"]) if admin else rnd.choices(
                ["merge", "key_merge", "revert", "report", "review"], weights=[4, 2, 1, 3, 1])[0]
            try:
                if op in ("merge", "key_merge", "revert"):
                    sha = f"{number:02x}{counter:010x}"
                    message = ""
                    if op == "key_merge":
                        message = f"Fixes {rnd.choice(KEYS)}"
                    elif op == "revert" and shas[scope]:
                        message = f"Revert\n\nThis reverts commit {rnd.choice(shas[scope][-2:])}."
                    fl.record_merge(conn, scope, sha, rnd.sample(FILES, rnd.randint(1, 2)), message=message)
                    shas[scope].append(sha)
                elif op == "report":
                    result = fl.report_finding(conn, scope, rnd.choice(KEYS), "stale again", review_run=f"w{number}")
                    report.rereport_reopened += result.outcome == "reopened"
                elif op == "review":
                    keys = rnd.sample(KEYS, rnd.randint(len(KEYS) - 3, len(KEYS)))
                    review = fl.replace_findings(conn, scope, f"run-{number}-{counter}",
                                                 [{"finding_key": k, "title": f"{k} is stale"} for k in keys],
                                                 kind="drift")
                    report.rereview_superseded += review.superseded
                    report.rereview_reopened += review.reopened
                else:
                    fid = conn.execute("SELECT id FROM ledger.finding WHERE scope = %s ORDER BY random() LIMIT 1",
                                       (scope,)).fetchone()[0]  # type: ignore[index]
                    if op == "dismiss":
                        fl.dismiss_finding(conn, fid, rnd.choice(["accepted", "wont_fix"]), f"w{number}", "race")
                        report.dismissed += 1
                    else:
                        fl.restore_finding(conn, fid, f"w{number}", "race")
                        report.restored += 1
                report.ops[op] += 1
            except fl.InvalidTransition:
                report.invalid_transitions += 1
            except (psycopg.Error, fl.LedgerError) as exc:
                report.errors.append(f"{op}: {type(exc).__name__}: {getattr(exc, 'sqlstate', None)} {exc}")
                if isinstance(exc, psycopg.OperationalError) and conn.closed:
                    return


def run(dsn: str, workers: int, seconds: float) -> list[Report]:
    reports = [Report() for _ in range(workers)]
    threads = [threading.Thread(target=worker, args=(dsn, n, seconds, reports[n])) for n in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return reports


def check_audit_replay(conn: psycopg.Connection[Any], reports: list[Report]) -> dict[str, int]:
    """Replay every finding's state-changing audit rows (audit id order) through
    the lifecycle state machine; see the module docstring."""
    rows = conn.execute(
        "SELECT a.finding_id, a.action, a.rule, a.merge_id, a.actor FROM ledger.supersession a "
        "WHERE a.action = ANY (%s) ORDER BY a.id", (list(STATE_CHANGES),)).fetchall()
    history: dict[int, list[tuple[str, str, int | None, str | None]]] = defaultdict(list)
    for fid, action, rule, merge_id, actor in rows:
        history[fid].append((action, rule, merge_id, actor))
    findings = conn.execute(
        "SELECT id, state, superseded_by_merge_id, supersede_rule, dismissed_by, reopen_count "
        "FROM ledger.finding_lifecycle").fetchall()
    allowed = {"superseded": {"active"}, "dismissed": {"active", "superseded"},
               "reopened": {"superseded"}, "restored": {"superseded", "dismissed"}}
    after = {"superseded": "superseded", "dismissed": "dismissed", "reopened": "active", "restored": "active"}
    for fid, state, by_merge, supersede_rule, dismissed_by, reopen_count in findings:
        current, last = "active", None
        for step in history.get(fid, []):
            action = step[0]
            assert current in allowed[action], (fid, current, action, history[fid])
            current, last = after[action], step
        assert current == state, (fid, state, history.get(fid))
        if state == "superseded":
            assert last is not None and (supersede_rule, by_merge) == (last[1], last[2]), (fid, last)
        if state == "dismissed":
            assert last is not None and dismissed_by == last[3], (fid, last)
        assert reopen_count == sum(s[0] in ("reopened", "restored") for s in history.get(fid, [])), fid

    totals = Counter((action, rule) for _, action, rule, _, _ in rows)
    assert totals[("dismissed", "manual")] == sum(r.dismissed for r in reports)
    assert totals[("restored", "manual")] == sum(r.restored for r in reports)
    assert totals[("reopened", "rereport")] == sum(r.rereport_reopened + r.rereview_reopened for r in reports)
    assert totals[("superseded", "rereview")] == sum(r.rereview_superseded for r in reports)
    ops = sum((r.ops for r in reports), Counter())
    return {**{f"{a}/{r}": n for (a, r), n in sorted(totals.items())}, **ops,
            "invalid_transitions": sum(r.invalid_transitions for r in reports)}
