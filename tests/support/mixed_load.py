"""A mixed load of every kind of caller, and the check that nothing acknowledged was lost.

Sixteen connections (one thread each, autocommit: every call its own transaction), two of
each kind:

* merge        record_merge and plain ``INSERT INTO ledger.merge``, alternately, touching
               the paths of the drift findings of ``mix-merge`` (the path rule retires them);
* import       a drift review (``import_drift_json``, through the API) of three new entries
               into ``mix-merge``, on the paths the merges touch;
* file-state   the pending file-state requests of ``mix-check`` answered
               (``record_file_states``), one text per merge (so two answers agree); when none
               is pending, a checked finding and a merge that opens a request;
* recheck      ``claim_rechecks`` and ``answer_recheck`` in ``mix-recheck`` (touch mode
               recheck); when none is open, a finding and a merge that opens one;
* verdict      ``verify_finding`` (resolved or still_true) on a finding of ``mix-verify``;
               a finding another verdict superseded first is LD302 (InvalidTransition), a
               legitimate answer to the race, counted; a new finding when few are active;
* prompt       ``read_prompt_text`` of a random scope;
* task         ``claim_task`` with a lease, ``renew_task_lease``, ``start_task``,
               ``complete_task``; when none is queued, an issue and a task enqueued;
* (the last two) one more merge and one more file-state worker.

Each connection logs in as the superuser and takes the role each call needs (``SET ROLE
ledger_writer``, ``ledger_reader``, ``ledger_agent``), as a service's login role holding that group would.
Every acknowledged call (its statement returned) is recorded in the worker's report;
:func:`check_nothing_lost` then finds each one's rows, and the audit replay of
``support.lifecycle_load`` (each finding's state is what its last state-changing audit row
says) proves the audit agrees with the findings.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg

import findings_ledger as fl
from findings_ledger import importers

from .lifecycle_load import check_audit_replay
from .touch_policy import retire_drift_on_touch

MERGE, CHECK, RECHECK, VERIFY = "mix-merge", "mix-check", "mix-recheck", "mix-verify"
SCOPES = (MERGE, CHECK, RECHECK, VERIFY)
FILES = tuple(f"src/m{i}.py" for i in range(24))
KINDS = ("merge", "import", "file-state", "recheck", "verdict", "prompt", "task", "merge", "import",
         "file-state", "recheck", "verdict", "prompt", "task", "merge", "file-state")
RUNTIME = "rt-mix"
LEASE = timedelta(seconds=30)


@dataclass
class Report:
    """What one worker's callers saw acknowledged."""

    kind: str
    ops: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    error_text: list[str] = field(default_factory=list)
    races: Counter[str] = field(default_factory=Counter)  # legitimate refusals (LD302 of a raced verdict)
    acked: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))


def seed(conn: psycopg.Connection[Any]) -> None:
    """The scopes and their policies; findings for the merges and the verdicts; queued tasks."""
    retire_drift_on_touch(conn, MERGE)
    fl.set_hygiene_mode(conn, MERGE, "on", create=True)
    for i, path in enumerate(FILES):
        fl.add_finding(conn, MERGE, f"seed {i} is stale", paths=[path], kind="drift")
    fl.set_hygiene_mode(conn, CHECK, "on", create=True)
    fl.set_match_policy(conn, RECHECK, create=True, touch="recheck", path_supersede_kinds=["*"])
    fl.set_hygiene_mode(conn, RECHECK, "on")
    fl.set_hygiene_mode(conn, VERIFY, "on", create=True)
    for i in range(40):
        fl.add_finding(conn, VERIFY, f"verify seed {i}", paths=[f"v/{i}.py"])
    for i in range(20):
        issue = fl.add_issue(conn, "mix-tasks", f"issue {i}", description="do it")
        fl.enqueue_task(conn, issue.id, "agent-mix", RUNTIME)


class Worker:
    def __init__(self, dsn: str, number: int, seconds: float, report: Report) -> None:
        self.dsn, self.number, self.seconds, self.report = dsn, number, seconds, report
        self.rnd = random.Random(number)
        self.counter = 0
        self.role = ""
        self.tmp = Path(tempfile.mkdtemp(prefix=f"mixed-load-{number}-"))

    def as_role(self, conn: psycopg.Connection[Any], role: str) -> None:
        if role != self.role:
            conn.execute(f"SET ROLE {role}")
            self.role = role

    def sha(self) -> str:
        self.counter += 1
        return f"{self.number:02x}{self.counter:010x}"

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.report.errors[self.report.kind] += 1
            self.report.error_text.append(f"{self.report.kind}: {type(exc).__name__}: {exc}")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _run(self) -> None:
        deadline = time.monotonic() + self.seconds
        body = getattr(self, "do_" + self.report.kind.replace("-", "_"))
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            while time.monotonic() < deadline:
                try:
                    body(conn)
                except fl.InvalidTransition:
                    self.report.races[self.report.kind] += 1
                except (psycopg.Error, fl.LedgerError) as exc:
                    self.report.errors[self.report.kind] += 1
                    self.report.error_text.append(f"{self.report.kind}: {type(exc).__name__}: "
                                                  f"{getattr(exc, 'sqlstate', None)} {exc}")
                    if conn.closed:
                        return

    # --- one call (or a few) per kind ---------------------------------------------------

    def do_merge(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_writer")
        sha, paths = self.sha(), self.rnd.sample(FILES, 2)
        if self.counter % 2:
            fl.record_merge(conn, MERGE, sha, paths, message="touch")
            self.report.ops["merge (record_merge)"] += 1
        else:
            conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES (%s, %s, %s)", (MERGE, sha, paths))
            self.report.ops["merge (INSERT)"] += 1
        self.report.acked["merge"].append((MERGE, sha))

    def do_import(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_writer")
        self.counter += 1
        review = self.tmp / f"review-{self.counter}.json"
        review.write_text(json.dumps({"observed_at": "2026-04-13", "drift_findings": [
            {"severity": "minor", "description": f"w{self.number} review {self.counter} entry {i}",
             "spec_ref": f"spec.md:{i}", "artifact_ref": self.rnd.choice(FILES)} for i in range(3)]}),
            encoding="utf-8")
        report = importers.import_drift_json(conn, MERGE, review)
        assert not report.skipped, report.skipped
        self.report.ops["import"] += 1
        self.report.acked["finding"].extend(i.finding.id for i in report.imported)

    def do_file_state(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_writer")
        pending = fl.pending_file_states(conn, CHECK)
        if not pending:
            n = self.sha()
            path = f"c/{n}.py"
            finding = fl.add_finding(conn, CHECK, f"{path} has a TODO", paths=[path], kind="drift",
                                     resolved_when={"all": [{"file_lacks": {"path": path, "pattern": "TODO"}}]})
            self.report.acked["finding"].append(finding.id)
            fl.record_merge(conn, CHECK, n, [path])
            self.report.acked["merge"].append((CHECK, n))
            self.report.ops["file-state (opened)"] += 1
            return
        p = self.rnd.choice(pending[:4])
        text = "done\n" if p.merge_id % 2 else "TODO: later\n"  # one answer per merge: two workers agree
        fl.record_file_states(conn, p.merge_id, {path: text for path in p.paths})
        self.report.ops["file-state answer"] += 1
        self.report.acked["file-state answer"].append(p.merge_id)

    def do_recheck(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_writer")
        verifier = f"v{self.number}"
        claimed = fl.claim_rechecks(conn, RECHECK, verifier, max=2)
        self.report.ops["recheck claim"] += 1
        if not claimed:
            n = self.sha()
            finding = fl.add_finding(conn, RECHECK, f"r {n} may be fixed", paths=[f"r/{n}.py"])
            self.report.acked["finding"].append(finding.id)
            fl.record_merge(conn, RECHECK, n, [f"r/{n}.py"])
            self.report.acked["merge"].append((RECHECK, n))
            self.report.ops["recheck (opened)"] += 1
            return
        for r in claimed:
            resolved = r.id % 2 == 0
            fl.answer_recheck(conn, r.id, resolved, f"looked at request {r.id}", verifier=verifier)
            self.report.ops["recheck answer"] += 1
            self.report.acked["recheck answer"].append((r.id, resolved, verifier))

    def do_verdict(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_reader")  # the prompt builder reads, the agent judges
        prompt = fl.read_prompt_text(conn, VERIFY).prompt  # an agent judges what its prompt showed
        shown = [int(m) for m in re.findall(r"\(finding (\d+)\)$", prompt, re.M)]
        if len(shown) < 5 or self.rnd.random() < 0.2:
            self.as_role(conn, "ledger_writer")
            finding = fl.add_finding(conn, VERIFY, f"verify w{self.number} {self.sha()}", paths=["v/new.py"])
            self.report.acked["finding"].append(finding.id)
            self.report.ops["verdict (new finding)"] += 1
            return
        verdict = self.rnd.choice(["resolved", "still_true"])
        finding_id = self.rnd.choice(shown)
        self.as_role(conn, "ledger_agent")
        entry = fl.verify_finding(conn, finding_id, verdict, "checked the code", f"agent-{self.number}")
        self.report.ops[f"verdict {verdict}"] += 1
        self.report.acked["verdict"].append((entry.id, finding_id, entry.action))

    def do_prompt(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_reader")
        fl.read_prompt_text(conn, self.rnd.choice(SCOPES), max_chars=4000)
        self.report.ops["prompt read"] += 1

    def do_task(self, conn: psycopg.Connection[Any]) -> None:
        self.as_role(conn, "ledger_agent")
        claim = fl.claim_task(conn, RUNTIME, lease=LEASE)
        if claim is None:
            self.as_role(conn, "ledger_writer")
            issue = fl.add_issue(conn, "mix-tasks", f"issue w{self.number} {self.sha()}", description="do it")
            task = fl.enqueue_task(conn, issue.id, "agent-mix", RUNTIME)
            self.report.acked["task enqueued"].append(task.id)
            self.report.ops["task (enqueued)"] += 1
            return
        self.report.ops["task claim"] += 1
        self.report.acked["task claim"].append(claim.task_id)
        fl.renew_task_lease(conn, claim.task_id, RUNTIME, LEASE)
        fl.start_task(conn, claim.task_id, session_id=f"sess-{claim.task_id}")
        fl.complete_task(conn, claim.task_id)
        self.report.ops["task completion"] += 1
        self.report.acked["task completion"].append(claim.task_id)


def run(dsn: str, seconds: float, kinds: tuple[str, ...] = KINDS) -> list[Report]:
    reports = [Report(kind) for kind in kinds]
    threads = [threading.Thread(target=Worker(dsn, n, seconds, reports[n]).run) for n in range(len(kinds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return reports


def check_nothing_lost(conn: psycopg.Connection[Any], reports: list[Report]) -> dict[str, int]:
    """Every acknowledged call has its rows; returns, per kind of row, how many were
    acknowledged and how many of them were not found (``lost``)."""
    acked: dict[str, list[Any]] = defaultdict(list)
    for r in reports:
        for kind, items in r.acked.items():
            acked[kind].extend(items)
    merges = set(conn.execute("SELECT scope, commit_sha FROM ledger.merge WHERE processed").fetchall())
    findings = {r[0] for r in conn.execute("SELECT id FROM ledger.finding")}
    answered = {r[0] for r in conn.execute(
        "SELECT merge_id FROM ledger.file_state_request GROUP BY merge_id HAVING bool_and(answered_at IS NOT NULL)")}
    rechecks = set(conn.execute("SELECT id, resolved, verifier FROM ledger.recheck_request "
                                "WHERE answered_at IS NOT NULL").fetchall())
    audit = set(conn.execute("SELECT id, finding_id, action FROM ledger.supersession").fetchall())
    dispatched = {r[0] for r in conn.execute("SELECT id FROM ledger.agent_task WHERE dispatch_count >= 1")}
    completed = {r[0] for r in conn.execute("SELECT id FROM ledger.agent_task WHERE status = 'completed'")}
    tasks = {r[0] for r in conn.execute("SELECT id FROM ledger.agent_task")}
    found = {"merge": merges, "finding": findings, "file-state answer": answered, "recheck answer": rechecks,
             "verdict": audit, "task claim": dispatched, "task completion": completed, "task enqueued": tasks}
    lost = {kind: [item for item in items if item not in found[kind]] for kind, items in acked.items()}
    assert all(not items for items in lost.values()), {k: v[:5] for k, v in lost.items() if v}
    # nothing done twice: each merge once, each task completed once
    assert conn.execute("SELECT count(*) = count(DISTINCT (scope, commit_sha)) FROM ledger.merge").fetchone() == (True,)
    assert len(acked["task completion"]) == len(set(acked["task completion"]))
    # the audit agrees with the findings: each finding's state is its last state-changing row's
    replay = check_audit_replay(conn, [])
    return {**{f"acked {k}": len(v) for k, v in sorted(acked.items())}, "lost": sum(len(v) for v in lost.values()),
            **{f"audit {k}": v for k, v in replay.items() if "/" in k}}
