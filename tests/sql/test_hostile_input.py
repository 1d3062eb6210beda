"""Hostile and malformed input, table-driven: every public column
and function argument of the foundation, claims, lifecycle and matching,
with NULLs where a value is required, empty strings, very long values (1 MB
text, 10,000 paths), '..', absolute paths, control characters,
non-UTF-8-looking escapes typed as text, JSON of the wrong shape, unknown
hygiene modes, rules and statuses, invalid state transitions (tasks,
dismiss/restore), unknown scopes, sessions and ids.

Each case is one line. It is sent twice: as the SQL a service would write,
which must fail with the project SQLSTATE and a message naming the field;
and through the Python API, which must raise the typed exception for that
SQLSTATE, naming the field too. Either way every ledger table keeps its row
count and no finding or scope changes (all cases share one seeded database,
so a case that wrote anything would also show in the next one).
Cases without a Python call are SQL utilities the API does not wrap.

Extend it with one line per new column or argument: a Case with the
statement, the API call, the code and the field.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb
from support.security import counts
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.errors import CONSTRAINT_ERRORS, SQLSTATE_ERRORS
from findings_ledger.testing.cluster import catalog_lock

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec", "s")

MB = "x" * 1_048_576
PATHS_10K = [f"p/{i}.py" for i in range(10_000)]
PATHS_100K = [f"p/{i}.py" for i in range(100_001)]
XFF = "\\xff"  # the four characters \ x f f, typed as text (a byte escape that is not one)
FAR_FUTURE = datetime(9999, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Case:
    name: str
    sql: str
    params: dict[str, Any]
    api: Callable[[psycopg.Connection[Any]], object] | None
    sqlstate: str
    field: str


FINDING_ROW = {"scope": "spec", "title": "a title", "kind": "drift", "severity": "low", "finding_key": None,
               "source": None, "description": None, "paths": ["b.py"]}
INSERT_FINDING = (
    "INSERT INTO ledger.finding (scope, title, kind, severity, finding_key, source, description, paths) "
    "VALUES (%(scope)s, %(title)s, %(kind)s, %(severity)s, %(finding_key)s, %(source)s, %(description)s, %(paths)s)"
)
MERGE_ROW = {"scope": "spec", "commit_sha": "beef", "node_id": None, "message": "", "paths": ["b.py"],
             "branch": None}
INSERT_MERGE = (
    "INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths, branch) "
    "VALUES (%(scope)s, %(commit_sha)s, %(node_id)s, %(message)s, %(paths)s, %(branch)s)"
)


def finding(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**FINDING_ROW, **values}
    return Case(f"finding.{name}", INSERT_FINDING, row, lambda c: fl.add_finding(
        c, row["scope"], row["title"], description=row["description"], paths=row["paths"], kind=row["kind"],
        severity=row["severity"], finding_key=row["finding_key"], source=row["source"]), sqlstate, field)


def merge(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**MERGE_ROW, **values}
    return Case(f"merge.{name}", INSERT_MERGE, row, lambda c: fl.record_merge(
        c, row["scope"], row["commit_sha"], row["paths"], message=row["message"], node_id=row["node_id"],
        branch=row["branch"]),
        sqlstate, field)


def scope(name: str, sqlstate: str, field: str, scope: Any = "spec-2", mode: Any = "on") -> Case:
    return Case(f"scope.{name}", "INSERT INTO ledger.scope (scope, hygiene_mode) VALUES (%(scope)s, %(mode)s)",
                {"scope": scope, "mode": mode}, lambda c: fl.set_hygiene_mode(c, scope, mode), sqlstate, field)


ISSUE_ROW = {"scope": "spec", "title": "an issue", "description": None, "status": "todo", "priority": "none",
             "assignee_type": None, "assignee_id": None}
INSERT_ISSUE = (
    "INSERT INTO ledger.issue (scope, title, description, status, priority, assignee_type, assignee_id) VALUES "
    "(%(scope)s, %(title)s, %(description)s, %(status)s, %(priority)s, %(assignee_type)s, %(assignee_id)s)"
)
TASK_ROW = {"issue_id": 1, "agent_id": "agent-1", "runtime_id": "rt-new", "rerun_of_task_id": None}
INSERT_TASK = (
    "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, rerun_of_task_id) "
    "VALUES (%(issue_id)s, %(agent_id)s, %(runtime_id)s, %(rerun_of_task_id)s)"
)
EVIDENCE_ROW = {"scope": "spec", "title": "imported", "finding_key": None, "slug": None, "strong_keywords": [],
                "tags": [], "paths": ["i.py"]}
INSERT_EVIDENCE = (
    "INSERT INTO ledger.finding (scope, title, finding_key, slug, strong_keywords, tags, paths) "
    "VALUES (%(scope)s, %(title)s, %(finding_key)s, %(slug)s, %(strong_keywords)s, %(tags)s, %(paths)s)"
)
POLICY_ROW = {"scope": "spec-3", "enabled_rules": ["path"], "path_supersede_kinds": ["drift"],
              "slug_mention_resolves": False, "default_branch": None}
INSERT_POLICY = (
    "INSERT INTO ledger.scope (scope, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch) "
    "VALUES (%(scope)s, %(enabled_rules)s, %(path_supersede_kinds)s, %(slug_mention_resolves)s, %(default_branch)s)"
)


def issue(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**ISSUE_ROW, **values}
    return Case(f"issue.{name}", INSERT_ISSUE, row, lambda c: fl.add_issue(
        c, row["scope"], row["title"], description=row["description"], status=row["status"],
        priority=row["priority"], assignee_type=row["assignee_type"], assignee_id=row["assignee_id"]),
        sqlstate, field)


def task(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**TASK_ROW, **values}
    return Case(f"agent_task.{name}", INSERT_TASK, row, lambda c: fl.enqueue_task(
        c, row["issue_id"], row["agent_id"], row["runtime_id"], rerun_of_task_id=row["rerun_of_task_id"]),
        sqlstate, field)


def evidence(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**EVIDENCE_ROW, **values}
    return Case(f"finding.{name}", INSERT_EVIDENCE, row, lambda c: fl.import_finding(
        c, row["scope"], row["title"], finding_key=row["finding_key"], slug=row["slug"],
        strong_keywords=row["strong_keywords"], tags=row["tags"], paths=row["paths"]), sqlstate, field)


def policy(name: str, sqlstate: str, field: str, api: bool = True, **values: Any) -> Case:
    """A scope's matching policy: plain INSERT of a new scope, and (when the
    value is not NULL, which set_match_policy reads as "unchanged")
    ledger.set_match_policy on the existing scope 'spec'."""
    row = {**POLICY_ROW, **values}
    return Case(f"scope.{name}", INSERT_POLICY, row, (lambda c: fl.set_match_policy(
        c, "spec", enabled_rules=values.get("enabled_rules"),
        path_supersede_kinds=values.get("path_supersede_kinds"),
        slug_mention_resolves=values.get("slug_mention_resolves"),
        default_branch=values.get("default_branch"))) if api else None, sqlstate, field)


def review(name: str, sqlstate: str, field: str, findings: Any, *, scope: Any = "spec", kind: Any = None,
           run: Any = "run-9", actor: Any = None) -> Case:
    """ledger.replace_findings with a set (JSON) of the wrong shape. The
    Python API always sends a JSON array, so a set that is not one is a
    SQL-only case."""
    params = {"scope": scope, "kind": kind, "run": run, "findings": None if findings is None else Jsonb(findings),
              "actor": actor}
    api = (lambda c: fl.replace_findings(c, scope, run, findings, kind=kind, actor=actor)) \
        if isinstance(findings, list) else None
    return Case(f"replace_findings {name}",
                "SELECT * FROM ledger.replace_findings(%(scope)s, %(kind)s, %(run)s, %(findings)s, %(actor)s)",
                params, api, sqlstate, field)


def call(name: str, sql: str, params: dict[str, Any], api: Callable[[psycopg.Connection[Any]], object] | None,
         sqlstate: str, field: str) -> Case:
    return Case(name, sql, params, api, sqlstate, field)


CASES = [
    # --- ledger.finding columns / ledger.add_finding arguments ----------------------------
    finding("scope NULL", "LD002", "finding.scope", scope=None),
    finding("scope empty", "LD002", "finding.scope", scope=""),
    finding("scope 201 chars", "LD004", "finding.scope", scope="s" * 201),
    finding("scope control char", "LD003", "finding.scope", scope="sp\x07ec"),
    finding("scope 1 MB", "LD004", "finding.scope", scope=MB),
    finding("title NULL", "LD002", "finding.title", title=None),
    finding("title empty", "LD002", "finding.title", title=""),
    finding("title blank", "LD002", "finding.title", title=" \t\x0b "),
    finding("title two lines", "LD003", "finding.title", title="one\ntwo"),
    finding("title escape char", "LD003", "finding.title", title="bell\x1b[31m"),
    finding("title 1 MB", "LD004", "finding.title", title=MB),
    finding("finding_key empty", "LD003", "finding.finding_key", finding_key=""),
    finding("finding_key 201 chars", "LD004", "finding.finding_key", finding_key="k" * 201),
    finding("finding_key control char", "LD003", "finding.finding_key", finding_key="k\x00k".replace("\x00", "\x01")),
    finding("kind blank", "LD002", "finding.kind", kind="  "),
    finding("kind 101 chars", "LD004", "finding.kind", kind="k" * 101),
    finding("kind control char", "LD003", "finding.kind", kind="dri\tft"),
    finding("severity unknown", "LD003", "finding.severity", severity="urgent"),
    finding("severity empty", "LD002", "finding.severity", severity=""),
    finding("severity 1 MB", "LD004", "finding.severity", severity=MB),
    finding("description 1 MB", "LD004", "finding.description", description=MB),
    finding("source empty", "LD003", "finding.source", source=""),
    finding("source 201 chars", "LD004", "finding.source", source="s" * 201),
    finding("paths 10,000", "LD004", "finding.paths", paths=PATHS_10K),
    finding("paths ..", "LD001", "finding.paths[2]", paths=["ok.py", "src/../../etc/passwd"]),
    finding("paths absolute", "LD001", "finding.paths[1]", paths=["/etc/passwd"]),
    finding("paths UNC", "LD001", "finding.paths[1]", paths=["\\\\server\\share\\x"]),
    finding("paths drive", "LD001", "finding.paths[1]", paths=["C:\\repo\\a.py"]),
    finding("paths control char", "LD001", "finding.paths[1]", paths=["src/a\x07.py"]),
    finding("paths newline inside", "LD001", "finding.paths[1]", paths=["src/a\nb.py"]),
    finding("paths NULL element", "LD001", "finding.paths[2]", paths=["a.py", None]),
    finding("paths empty element", "LD001", "finding.paths[1]", paths=[""]),
    finding("paths dot", "LD001", "finding.paths[1]", paths=["./"]),
    finding("paths escape typed as text", "LD001", "finding.paths[1]", paths=[XFF]),
    finding("paths 4097 chars", "LD001", "finding.paths[1]", paths=["p" * 4097]),
    # --- ledger.merge columns / ledger.record_merge arguments -----------------------------
    merge("scope NULL", "LD002", "merge.scope", scope=None),
    merge("scope empty", "LD002", "merge.scope", scope=""),
    merge("scope 201 chars", "LD004", "merge.scope", scope="s" * 201),
    merge("scope control char", "LD003", "merge.scope", scope="a\x7fb"),
    merge("commit_sha NULL", "LD002", "merge.commit_sha", commit_sha=None),
    merge("commit_sha empty", "LD002", "merge.commit_sha", commit_sha=""),
    merge("commit_sha not hex", "LD003", "merge.commit_sha", commit_sha="not-a-sha"),
    merge("commit_sha 3 digits", "LD003", "merge.commit_sha", commit_sha="abc"),
    merge("commit_sha 65 digits", "LD004", "merge.commit_sha", commit_sha="a" * 65),
    merge("commit_sha escape typed as text", "LD003", "merge.commit_sha", commit_sha=XFF),
    merge("commit_sha injection", "LD003", "merge.commit_sha", commit_sha="abcd'; DROP TABLE ledger.merge; --"),
    merge("node_id empty", "LD003", "merge.node_id", node_id=""),
    merge("node_id 201 chars", "LD004", "merge.node_id", node_id="n" * 201),
    merge("node_id control char", "LD003", "merge.node_id", node_id="n\r\nSet-Cookie: x"),
    merge("message 1 MB", "LD004", "merge.message", message=MB),
    merge("paths 100,001", "LD004", "merge.paths", paths=PATHS_100K),
    merge("paths ..", "LD001", "merge.paths[1]", paths=[".."]),
    merge("paths absolute", "LD001", "merge.paths[2]", paths=["b.py", "/b.py"]),
    merge("paths control char", "LD001", "merge.paths[1]", paths=["b\x01.py"]),
    merge("paths NULL element", "LD001", "merge.paths[1]", paths=[None]),
    merge("paths escape typed as text", "LD001", "merge.paths[1]", paths=[XFF + "/a.py"]),
    # --- ledger.scope columns / ledger.set_hygiene_mode arguments -------------------------
    scope("scope NULL", "LD002", "scope.scope", scope=None),
    scope("scope empty", "LD002", "scope.scope", scope=""),
    scope("scope 201 chars", "LD004", "scope.scope", scope="s" * 201),
    scope("scope control char", "LD003", "scope.scope", scope="x\x1fy"),
    scope("hygiene_mode unknown", "LD003", "scope.hygiene_mode", mode="sometimes"),
    scope("hygiene_mode empty", "LD002", "scope.hygiene_mode", mode=""),
    scope("hygiene_mode 1 MB", "LD004", "scope.hygiene_mode", mode=MB),
    call("set_hygiene_mode mode NULL", "SELECT ledger.set_hygiene_mode(%(scope)s, %(mode)s)",
         {"scope": "spec", "mode": None}, lambda c: fl.set_hygiene_mode(c, "spec", None),  # type: ignore[arg-type]
         "LD002", "scope.hygiene_mode"),
    call("set_hygiene_mode existing scope, unknown mode", "SELECT ledger.set_hygiene_mode(%(scope)s, %(mode)s)",
         {"scope": "spec", "mode": "partly"}, lambda c: fl.set_hygiene_mode(c, "spec", "partly"),
         "LD003", "scope.hygiene_mode"),
    # --- reading functions: unknown scopes and ids ----------------------------------------
    call("active_findings scope NULL", "SELECT * FROM ledger.active_findings(%(s)s)", {"s": None},
         lambda c: fl.active_findings(c, None), "LD005", "scope"),  # type: ignore[arg-type]
    call("active_findings unknown scope", "SELECT * FROM ledger.active_findings(%(s)s)", {"s": "nope"},
         lambda c: fl.active_findings(c, "nope"), "LD005", "scope"),
    call("active_findings scope 1 MB", "SELECT * FROM ledger.active_findings(%(s)s)", {"s": MB},
         lambda c: fl.active_findings(c, MB), "LD005", "scope"),
    call("read_audit unknown scope", "SELECT * FROM ledger.read_audit(%(s)s)", {"s": "nope"},
         lambda c: fl.read_audit(c, "nope"), "LD005", "scope"),
    call("read_audit unknown finding_id", "SELECT * FROM ledger.read_audit(%(s)s, %(f)s)", {"s": "spec", "f": 10**12},
         lambda c: fl.read_audit(c, "spec", finding_id=10**12), "LD005", "finding_id"),
    call("read_audit negative merge_id", "SELECT * FROM ledger.read_audit(%(s)s, NULL, %(m)s)", {"s": "spec", "m": -1},
         lambda c: fl.read_audit(c, "spec", merge_id=-1), "LD005", "merge_id"),
    call("read_audit finding of another scope", "SELECT * FROM ledger.read_audit(%(s)s, %(f)s)",
         {"s": "other", "f": 1}, lambda c: fl.read_audit(c, "other", finding_id=1), "LD005", "finding_id"),
    call("reconcile scope NULL", "SELECT * FROM ledger.reconcile(%(s)s)", {"s": None},
         lambda c: fl.reconcile(c, None), "LD002", "reconcile.scope"),  # type: ignore[arg-type]
    call("reconcile unknown scope", "SELECT * FROM ledger.reconcile(%(s)s)", {"s": "nope"},
         lambda c: fl.reconcile(c, "nope"), "LD005", "reconcile.scope"),
    call("reconcile scope 1 MB", "SELECT * FROM ledger.reconcile(%(s)s)", {"s": MB},
         lambda c: fl.reconcile(c, MB), "LD004", "reconcile.scope"),
    # --- SQL utilities (no Python call) -----------------------------------------------------
    call("normalize_path NULL", "SELECT ledger.normalize_path(%(p)s)", {"p": None}, None, "LD001", "path"),
    call("normalize_path field named", "SELECT ledger.normalize_path(%(p)s, 'my.column')", {"p": "../x"}, None,
         "LD001", "my.column"),
    call("normalize_paths over its limit", "SELECT ledger.normalize_paths(%(p)s, 'my.paths', 10000)",
         {"p": [*PATHS_10K, "one-more.py"]}, None, "LD004", "my.paths"),
    # --- claims: ledger.issue columns / ledger.add_issue arguments ---------------------------
    issue("scope NULL", "LD002", "issue.scope", scope=None),
    issue("scope control char", "LD003", "issue.scope", scope="sp\x1bec"),
    issue("scope 201 chars", "LD004", "issue.scope", scope="s" * 201),
    issue("title NULL", "LD002", "issue.title", title=None),
    issue("title blank", "LD002", "issue.title", title=" \n "),
    issue("title 1001 chars", "LD004", "issue.title", title="t" * 1001),
    issue("description 1 MB", "LD004", "issue.description", description=MB),
    issue("status unknown", "LD003", "issue.status", status="finished"),
    issue("status empty", "LD002", "issue.status", status=""),
    issue("priority unknown", "LD003", "issue.priority", priority="p0"),
    issue("assignee_type unknown", "LD003", "issue.assignee_type", assignee_type="robot", assignee_id="r2"),
    issue("assignee_id without type", "LD003", "issue.assignee_id", assignee_id="someone"),
    issue("assignee_id 201 chars", "LD004", "issue.assignee_id", assignee_type="member", assignee_id="a" * 201),
    call("issue.status UPDATE unknown", "UPDATE ledger.issue SET status = %(s)s WHERE id = 1", {"s": "won't do"},
         None, "LD003", "issue.status"),
    # --- claims: ledger.agent_task columns / ledger.enqueue_task arguments -------------------
    task("issue_id NULL", "LD002", "agent_task.issue_id", issue_id=None),
    task("issue_id unknown", "LD005", "agent_task.issue_id", issue_id=10**12),
    task("agent_id NULL", "LD002", "agent_task.agent_id", agent_id=None),
    task("agent_id empty", "LD002", "agent_task.agent_id", agent_id=""),
    task("agent_id control char", "LD003", "agent_task.agent_id", agent_id="a\tb"),
    task("runtime_id 201 chars", "LD004", "agent_task.runtime_id", runtime_id="r" * 201),
    task("runtime_id 1 MB", "LD004", "agent_task.runtime_id", runtime_id=MB),
    task("rerun_of_task_id unknown", "LD005", "agent_task.rerun_of_task_id", rerun_of_task_id=-5),
    call("agent_task.issue_snapshot on INSERT", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, "
         "issue_snapshot) VALUES (1, 'a', 'r', %(j)s)", {"j": Jsonb({"v": 1, "title_sha256": "x"})}, None,
         "LD203", "agent_task.issue_snapshot"),
    call("agent_task.issue_snapshot of the wrong shape, UPDATE", "UPDATE ledger.agent_task SET issue_snapshot = "
         "%(j)s WHERE id = 1", {"j": Jsonb([1, 2, 3])}, None, "LD203", "agent_task.issue_snapshot"),
    call("agent_task.status dispatched on INSERT", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, "
         "status) VALUES (1, 'a', 'r', 'dispatched')", {}, None, "LD201", "agent_task.status"),
    call("agent_task.status unknown, UPDATE", "UPDATE ledger.agent_task SET status = 'paused' WHERE id = 3", {},
         None, "LD003", "agent_task.status"),
    call("agent_task dispatched outside the claim", "UPDATE ledger.agent_task SET status = 'dispatched' "
         "WHERE id = 3", {}, None, "LD202", "ledger.claim_task"),
    call("agent_task.agent_id frozen once dispatched", "UPDATE ledger.agent_task SET agent_id = 'other' "
         "WHERE id = 2", {}, None, "LD204", "agent_id"),
    # --- claims: the task functions ------------------------------------------------------------
    call("claim_task runtime NULL", "SELECT * FROM ledger.claim_task(%(r)s)", {"r": None},
         lambda c: fl.claim_task(c, None), "LD002", "claim_task.p_runtime_id"),  # type: ignore[arg-type]
    call("claim_task runtime blank", "SELECT * FROM ledger.claim_task(%(r)s)", {"r": "  "},
         lambda c: fl.claim_task(c, "  "), "LD002", "claim_task.p_runtime_id"),
    call("claim_task runtime control char", "SELECT * FROM ledger.claim_task(%(r)s)", {"r": "rt-\x01queued"},
         lambda c: fl.claim_task(c, "rt-\x01queued"), "LD003", "claim_task.p_runtime_id"),
    call("claim_task runtime 1 MB", "SELECT * FROM ledger.claim_task(%(r)s)", {"r": MB},
         lambda c: fl.claim_task(c, MB), "LD004", "claim_task.p_runtime_id"),
    call("claim_task agent 201 chars", "SELECT * FROM ledger.claim_task(%(r)s, %(a)s)",
         {"r": "rt-queued", "a": "a" * 201},
         lambda c: fl.claim_task(c, "rt-queued", agent_id="a" * 201), "LD004", "claim_task.p_agent_id"),
    call("start_task unknown id", "SELECT * FROM ledger.start_task(%(t)s)", {"t": 10**12},
         lambda c: fl.start_task(c, 10**12), "LD005", "agent_task.id"),
    call("start_task NULL id", "SELECT * FROM ledger.start_task(%(t)s)", {"t": None},
         lambda c: fl.start_task(c, None), "LD005", "agent_task.id"),  # type: ignore[arg-type]
    call("start_task of a queued task", "SELECT * FROM ledger.start_task(%(t)s)", {"t": 3},
         lambda c: fl.start_task(c, 3), "LD201", "agent_task.status"),
    call("start_task of a running task", "SELECT * FROM ledger.start_task(%(t)s)", {"t": 2},
         lambda c: fl.start_task(c, 2), "LD201", "agent_task.status"),
    call("complete_task of a queued task", "SELECT * FROM ledger.complete_task(%(t)s)", {"t": 3},
         lambda c: fl.complete_task(c, 3), "LD201", "agent_task.status"),
    call("complete_task session_id 201 chars", "SELECT * FROM ledger.complete_task(%(t)s, %(s)s)",
         {"t": 2, "s": "s" * 201}, lambda c: fl.complete_task(c, 2, session_id="s" * 201), "LD004",
         "agent_task.session_id"),
    call("fail_task reason NULL", "SELECT * FROM ledger.fail_task(%(t)s, %(r)s)", {"t": 2, "r": None},
         lambda c: fl.fail_task(c, 2, None), "LD002", "agent_task.failure_reason"),  # type: ignore[arg-type]
    call("fail_task reason two lines", "SELECT * FROM ledger.fail_task(%(t)s, %(r)s)", {"t": 2, "r": "a\nb"},
         lambda c: fl.fail_task(c, 2, "a\nb"), "LD003", "agent_task.failure_reason"),
    call("fail_task of a completed task", "SELECT * FROM ledger.fail_task(%(t)s, 'x')", {"t": 1},
         lambda c: fl.fail_task(c, 1, "x"), "LD201", "agent_task.status"),
    call("cancel_task of a completed task", "SELECT * FROM ledger.cancel_task(%(t)s)", {"t": 1},
         lambda c: fl.cancel_task(c, 1), "LD201", "agent_task.status"),
    call("cancel_task reason 1 MB", "SELECT * FROM ledger.cancel_task(%(t)s, %(r)s)", {"t": 3, "r": MB},
         lambda c: fl.cancel_task(c, 3, reason=MB), "LD004", "agent_task.failure_reason"),
    call("requeue_task of a running task", "SELECT * FROM ledger.requeue_task(%(t)s)", {"t": 2},
         lambda c: fl.requeue_task(c, 2), "LD201", "agent_task.status"),
    call("requeue_task unknown id", "SELECT * FROM ledger.requeue_task(%(t)s)", {"t": -1},
         lambda c: fl.requeue_task(c, -1), "LD005", "agent_task.id"),
    call("issue_snapshot unknown version", "SELECT ledger.issue_snapshot('t', 'd', %(v)s)", {"v": 3},
         lambda c: fl.issue_snapshot(c, "t", "d", version=3), "LD003", "issue_snapshot.p_version"),
    # --- lifecycle: ledger.report_finding ------------------------------------------------------
    call("report_finding scope NULL", "SELECT * FROM ledger.report_finding(%(s)s, 'k', 't')", {"s": None},
         lambda c: fl.report_finding(c, None, "k", "t"), "LD002", "finding.scope"),  # type: ignore[arg-type]
    call("report_finding key NULL", "SELECT * FROM ledger.report_finding('spec', %(k)s, 't')", {"k": None},
         lambda c: fl.report_finding(c, "spec", None, "t"), "LD002", "finding.finding_key"),  # type: ignore[arg-type]
    call("report_finding key 201 chars", "SELECT * FROM ledger.report_finding('spec', %(k)s, 't')", {"k": "k" * 201},
         lambda c: fl.report_finding(c, "spec", "k" * 201, "t"), "LD004", "finding.finding_key"),
    call("report_finding title NULL", "SELECT * FROM ledger.report_finding('spec', 'dup', %(t)s)", {"t": None},
         lambda c: fl.report_finding(c, "spec", "dup", None), "LD002", "finding.title"),  # type: ignore[arg-type]
    call("report_finding review_run control char", "SELECT * FROM ledger.report_finding('spec', 'dup', 't', "
         "p_review_run => %(r)s)", {"r": "run\x07"}, lambda c: fl.report_finding(c, "spec", "dup", "t",
                                                                                  review_run="run\x07"),
         "LD003", "finding.review_run"),
    call("report_finding new, path ..", "SELECT * FROM ledger.report_finding('spec', 'new-k', 't', NULL, %(p)s)",
         {"p": ["../x"]}, lambda c: fl.report_finding(c, "spec", "new-k", "t", paths=["../x"]), "LD001",
         "finding.paths[1]"),
    call("report_finding new, severity unknown", "SELECT * FROM ledger.report_finding('spec', 'new-k', 't', "
         "p_severity => %(v)s)", {"v": "catastrophic"}, lambda c: fl.report_finding(c, "spec", "new-k", "t",
                                                                                      severity="catastrophic"),
         "LD003", "finding.severity"),
    # --- lifecycle: ledger.replace_findings (JSON of the wrong shape) --------------------------
    review("set NULL", "LD003", "findings", None),
    review("set an object", "LD003", "findings", {"finding_key": "dup", "title": "t"}),
    review("set a string", "LD003", "findings", "dup"),
    review("element a number", "LD003", "findings[2]", [{"finding_key": "dup", "title": "t"}, 42]),
    review("element without finding_key", "LD002", "findings[1].finding_key", [{"title": "t"}]),
    review("element without title", "LD002", "findings[1].title", [{"finding_key": "dup"}]),
    review("element title 1 MB", "LD004", "findings[1].title", [{"finding_key": "dup", "title": MB}]),
    review("element paths a string", "LD003", "findings[1].paths",
           [{"finding_key": "dup", "title": "t", "paths": "src/a.py"}]),
    review("element paths numbers", "LD003", "findings[1].paths",
           [{"finding_key": "dup", "title": "t", "paths": ["a.py", 7]}]),
    review("element kind differs", "LD003", "findings[1].kind",
           [{"finding_key": "dup", "title": "t", "kind": "review"}], kind="drift"),
    review("duplicate finding_key", "LD303", "findings[2].finding_key",
           [{"finding_key": "dup", "title": "t"}, {"finding_key": " dup ", "title": "t"}]),
    review("new element, absolute path", "LD001", "finding.paths[1]",
           [{"finding_key": "dup", "title": "t"}, {"finding_key": "new-k", "title": "t", "paths": ["/etc"]}]),
    review("scope NULL", "LD002", "scope", [], scope=None),
    review("review_run NULL", "LD002", "review_run", [], run=None),
    review("kind 101 chars", "LD004", "kind", [], kind="k" * 101),
    review("actor control char", "LD003", "actor", [], actor="a\x1bb"),
    # --- lifecycle: dismiss / restore ------------------------------------------------------------
    call("dismiss_finding unknown id", "SELECT * FROM ledger.dismiss_finding(%(f)s, 'accepted', 'me', 'why')",
         {"f": 10**12}, lambda c: fl.dismiss_finding(c, 10**12, "accepted", "me", "why"), "LD005", "finding"),
    call("dismiss_finding NULL id", "SELECT * FROM ledger.dismiss_finding(%(f)s, 'accepted', 'me', 'why')",
         {"f": None}, lambda c: fl.dismiss_finding(c, None, "accepted", "me", "why"),  # type: ignore[arg-type]
         "LD005", "finding"),
    call("dismiss_finding resolution unknown", "SELECT * FROM ledger.dismiss_finding(1, %(r)s, 'me', 'why')",
         {"r": "meh"}, lambda c: fl.dismiss_finding(c, 1, "meh", "me", "why"), "LD003", "resolution"),
    call("dismiss_finding resolution NULL", "SELECT * FROM ledger.dismiss_finding(1, %(r)s, 'me', 'why')",
         {"r": None}, lambda c: fl.dismiss_finding(c, 1, None, "me", "why"),  # type: ignore[arg-type]
         "LD002", "resolution"),
    call("dismiss_finding actor NULL", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', %(a)s, 'why')",
         {"a": None}, lambda c: fl.dismiss_finding(c, 1, "accepted", None, "why"),  # type: ignore[arg-type]
         "LD002", "actor"),
    call("dismiss_finding reason blank", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', 'me', %(r)s)",
         {"r": "\n\t"}, lambda c: fl.dismiss_finding(c, 1, "accepted", "me", "\n\t"), "LD002", "reason"),
    call("dismiss_finding reason 1 MB", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', 'me', %(r)s)",
         {"r": MB}, lambda c: fl.dismiss_finding(c, 1, "accepted", "me", MB), "LD004", "reason"),
    call("dismiss_finding already dismissed", "SELECT * FROM ledger.dismiss_finding(3, 'duplicate', 'me', 'why')",
         {}, lambda c: fl.dismiss_finding(c, 3, "duplicate", "me", "why"), "LD302", "finding 3"),
    call("restore_finding unknown id", "SELECT * FROM ledger.restore_finding(%(f)s, 'me', 'why')", {"f": -3},
         lambda c: fl.restore_finding(c, -3, "me", "why"), "LD005", "finding"),
    call("restore_finding an active finding", "SELECT * FROM ledger.restore_finding(1, 'me', 'why')", {},
         lambda c: fl.restore_finding(c, 1, "me", "why"), "LD302", "finding 1"),
    call("restore_finding actor 201 chars", "SELECT * FROM ledger.restore_finding(3, %(a)s, 'why')", {"a": "a" * 201},
         lambda c: fl.restore_finding(c, 3, "a" * 201, "why"), "LD004", "actor"),
    call("finding DELETE", "DELETE FROM ledger.finding WHERE id = 1", {}, None, "LD304", "finding 1"),
    call("finding.dismissed_at without a resolution", "UPDATE ledger.finding SET dismissed_at = now() WHERE id = 1",
         {}, None, "LD305", "finding.dismissed_at"),
    call("finding.resolution unknown", "UPDATE ledger.finding SET resolution = 'maybe' WHERE id = 3", {}, None,
         "LD003", "finding.resolution"),
    # --- lifecycle: injections and reads -----------------------------------------------------
    call("record_injection session NULL", "SELECT * FROM ledger.record_injection(%(s)s, '{1}')", {"s": None},
         lambda c: fl.record_injection(c, None, [1]), "LD002", "session_id"),  # type: ignore[arg-type]
    call("record_injection session 201 chars", "SELECT * FROM ledger.record_injection(%(s)s, '{1}')",
         {"s": "s" * 201}, lambda c: fl.record_injection(c, "s" * 201, [1]), "LD004", "session_id"),
    call("record_injection ids NULL", "SELECT * FROM ledger.record_injection('s', %(i)s)", {"i": None}, None,
         "LD002", "finding_ids"),
    call("record_injection a NULL id", "SELECT * FROM ledger.record_injection('s', %(i)s)", {"i": [1, None]},
         lambda c: fl.record_injection(c, "s", [1, None]), "LD002", "finding_ids"),  # type: ignore[list-item]
    call("record_injection unknown finding", "SELECT * FROM ledger.record_injection('s', %(i)s)", {"i": [1, 10**12]},
         lambda c: fl.record_injection(c, "s", [1, 10**12]), "LD005", "injection.finding_id"),
    call("injection.finding_id NULL", "INSERT INTO ledger.injection (session_id, finding_id) VALUES ('s', NULL)", {},
         None, "LD002", "injection.finding_id"),
    call("injection.session_id control char", "INSERT INTO ledger.injection (session_id, finding_id) "
         "VALUES (%(s)s, 1)", {"s": "s\x00".replace("\x00", "\x02")}, None, "LD003", "injection.session_id"),
    call("read_finding unknown id", "SELECT * FROM ledger.read_finding(%(f)s)", {"f": 10**12},
         lambda c: fl.read_finding(c, 10**12), "LD005", "finding"),
    call("read_history unknown id", "SELECT * FROM ledger.read_history(%(f)s)", {"f": 0},
         lambda c: fl.read_history(c, 0), "LD005", "finding"),
    call("read_injections neither session nor finding", "SELECT * FROM ledger.read_injections()", {},
         lambda c: fl.read_injections(c), "LD002", "session_id"),
    call("read_injections unknown finding", "SELECT * FROM ledger.read_injections(NULL, %(f)s)", {"f": 10**12},
         lambda c: fl.read_injections(c, finding_id=10**12), "LD005", "finding"),
    call("measure_convergence unknown session", "SELECT * FROM ledger.measure_convergence(%(s)s)", {"s": "nope"},
         lambda c: fl.measure_convergence(c, "nope"), "LD005", "session_id"),
    call("measure_convergence session NULL", "SELECT * FROM ledger.measure_convergence(%(s)s)", {"s": None},
         lambda c: fl.measure_convergence(c, None), "LD002", "session_id"),  # type: ignore[arg-type]
    call("read_prompt_findings unknown scope", "SELECT * FROM ledger.read_prompt_findings(%(s)s)", {"s": "nope"},
         lambda c: fl.read_prompt_findings(c, "nope"), "LD005", "scope"),
    call("read_prompt_findings negative budget", "SELECT * FROM ledger.read_prompt_findings('spec', NULL, NULL, "
         "%(m)s)", {"m": -1}, lambda c: fl.read_prompt_findings(c, "spec", max_chars=-1), "LD003", "max_chars"),
    call("read_prompt_findings negative age", "SELECT * FROM ledger.read_prompt_findings('spec', NULL, %(a)s)",
         {"a": timedelta(days=-1)}, lambda c: fl.read_prompt_findings(c, "spec", max_age=timedelta(days=-1)),
         "LD003", "max_age"),
    # --- matching: finding evidence columns / ledger.import_finding ----------------------------
    evidence("slug two words", "LD102", "finding.slug", slug="two words"),
    evidence("slug 201 chars", "LD004", "finding.slug", slug="s" * 201),
    evidence("slug control char", "LD003", "finding.slug", slug="sl\x07ug"),
    evidence("strong_keywords topic word", "LD101", "finding.strong_keywords[2]", strong_keywords=["E_OK_1",
                                                                                                  "dispatcher"]),
    evidence("strong_keywords NULL element", "LD003", "finding.strong_keywords[1]", strong_keywords=[None]),
    evidence("strong_keywords 101", "LD004", "finding.strong_keywords", strong_keywords=[f"E_{i}" for i in range(101)]),
    evidence("strong_keywords 1 MB", "LD004", "finding.strong_keywords[1]", strong_keywords=["E_" + MB]),
    evidence("tags NULL element", "LD003", "finding.tags[1]", tags=[None]),
    evidence("tags 101 chars", "LD004", "finding.tags[1]", tags=["t" * 101]),
    evidence("tags two lines", "LD003", "finding.tags[1]", tags=["a\nb"]),
    evidence("title NULL (import)", "LD002", "finding.title", title=None),
    evidence("scope NULL (import)", "LD002", "finding.scope", scope=None),
    evidence("paths absolute (import)", "LD001", "finding.paths[1]", paths=["/abs"]),
    evidence("slug of another finding", "23505", "finding_scope_slug_key", finding_key="new-key", slug="seeded-slug"),
    # --- matching: merge.branch / record_merge p_branch -----------------------------------------
    merge("branch blank", "LD003", "merge.branch", branch=" "),
    merge("branch 256 chars", "LD004", "merge.branch", branch="b" * 256),
    merge("branch control char", "LD003", "merge.branch", branch="main\x1b"),
    # --- matching: scope policy / ledger.set_match_policy ------------------------------------------
    policy("enabled_rules unknown rule", "LD003", "scope.enabled_rules", enabled_rules=["path", "magic"]),
    policy("enabled_rules NULL element", "LD003", "scope.enabled_rules", enabled_rules=[None]),
    policy("enabled_rules NULL", "LD002", "scope.enabled_rules", api=False, enabled_rules=None),
    policy("path_supersede_kinds NULL", "LD002", "scope.path_supersede_kinds", api=False, path_supersede_kinds=None),
    policy("path_supersede_kinds blank kind", "LD002", "scope.path_supersede_kinds[2]",
           path_supersede_kinds=["drift", " "]),
    policy("path_supersede_kinds 101 kinds", "LD004", "scope.path_supersede_kinds",
           path_supersede_kinds=[f"k{i}" for i in range(101)]),
    policy("path_supersede_kinds kind 101 chars", "LD004", "scope.path_supersede_kinds[1]",
           path_supersede_kinds=["k" * 101]),
    policy("slug_mention_resolves NULL", "LD002", "scope.slug_mention_resolves", api=False,
           slug_mention_resolves=None),
    policy("default_branch 256 chars", "LD004", "scope.default_branch", default_branch="b" * 256),
    policy("default_branch control char", "LD003", "scope.default_branch", default_branch="ma\tin"),
    call("set_match_policy scope NULL", "SELECT * FROM ledger.set_match_policy(%(s)s)", {"s": None},
         lambda c: fl.set_match_policy(c, None), "LD002", "scope.scope"),  # type: ignore[arg-type]
    call("workspace_scope NULL", "SELECT ledger.workspace_scope(%(d)s)", {"d": None}, None, "LD002",
         "workspace directory"),
    call("workspace_scope blank", "SELECT ledger.workspace_scope(%(d)s)", {"d": "   "}, None, "LD002",
         "workspace directory"),
    call("workspace_scope 4097 chars", "SELECT ledger.workspace_scope(%(d)s)", {"d": "/" + "d" * 4096},
         lambda c: fl.workspace_scope(c, "/" + "d" * 4096), "LD004", "workspace directory"),
    # --- Unicode and quoting in paths, array shapes ---------------------------------
    finding("paths no-break space only", "LD001", "finding.paths[1]", paths=["\u00a0"]),
    finding("paths ideographic space only", "LD001", "finding.paths[1]", paths=[" \u3000\u2003 "]),
    finding("paths zero-width space", "LD001", "finding.paths[1]", paths=["src/a\u200b.py"]),
    finding("paths zero-width joiner", "LD001", "finding.paths[2]", paths=["ok.py", "src/\u200da.py"]),
    finding("paths right-to-left override", "LD001", "finding.paths[1]", paths=["src/\u202egnp.exe"]),
    finding("paths isolate", "LD001", "finding.paths[1]", paths=["src/\u2066a.py"]),
    finding("paths byte order mark", "LD001", "finding.paths[1]", paths=["\ufeffsrc/a.py"]),
    finding("paths soft hyphen", "LD001", "finding.paths[1]", paths=["co\u00adnfig.py"]),
    finding("paths C1 control", "LD001", "finding.paths[1]", paths=["src/a\u0085b.py"]),
    finding("paths line separator inside", "LD001", "finding.paths[1]", paths=["src/a\u2028b.py"]),
    finding("paths C-quoted, unterminated", "LD001", "finding.paths[1]", paths=['"docs/caf\\303\\251.md']),
    finding("paths C-quoted, text after the quote", "LD001", "finding.paths[1]", paths=['"a.py" b.py']),
    finding("paths C-quoted, unknown escape", "LD001", "finding.paths[1]", paths=['"a\\x41.py"']),
    finding("paths C-quoted, not UTF-8", "LD001", "finding.paths[1]", paths=['"caf\\377.md"']),
    finding("paths C-quoted tab", "LD001", "finding.paths[1]", paths=['"a\\tb.py"']),
    finding("paths C-quoted NUL", "LD001", "finding.paths[1]", paths=['"a\\000b.py"']),
    finding("paths leading double quote once unquoted", "LD001", "finding.paths[1]", paths=['"\\"a.py"']),
    finding("paths 2-dimensional", "LD003", "finding.paths", paths=[["a.py"], ["b.py"]]),
    call("finding.paths lower bound 0", "INSERT INTO ledger.finding (scope, title, paths) "
         "VALUES ('spec', 't', '[0:1]={a.py,b.py}')", {}, None, "LD003", "finding.paths"),
    merge("paths 2-dimensional", "LD003", "merge.paths", paths=[["b.py", "c.py"], ["d.py", "e.py"]]),
    call("merge.paths lower bound 2", "INSERT INTO ledger.merge (scope, commit_sha, paths) "
         "VALUES ('spec', 'beef', '[2:2]={b.py}')", {}, None, "LD003", "merge.paths"),
    merge("paths zero-width space", "LD001", "merge.paths[1]", paths=["b\u200c.py"]),
    merge("paths C-quoted, unterminated", "LD001", "merge.paths[1]", paths=['"b.py']),
    # --- scope names every feature can express -----------------------------------------
    finding("scope with a comma", "LD003", "finding.scope", scope="a,b"),
    finding("scope with a zero-width space", "LD003", "finding.scope", scope="spec\u200b"),
    finding("scope no-break space only", "LD002", "finding.scope", scope="\u00a0"),
    merge("scope with a comma", "LD003", "merge.scope", scope="spec,other"),
    scope("scope with a comma", "LD003", "scope.scope", scope="a,b"),
    scope("scope with a bidi override", "LD003", "scope.scope", scope="\u202espec"),
    issue("scope with a comma", "LD003", "issue.scope", scope="a,b"),
    call("report_finding scope with a comma", "SELECT * FROM ledger.report_finding(%(s)s, 'k', 't')", {"s": "a,b"},
         lambda c: fl.report_finding(c, "a,b", "k", "t"), "LD003", "finding.scope"),
    # --- writer-supplied times in the future --------------------------------------------
    call("finding.created_at in the future", "INSERT INTO ledger.finding (scope, title, created_at) "
         "VALUES ('spec', 't', %(t)s)", {"t": FAR_FUTURE}, None, "LD003", "finding.created_at"),
    call("finding.created_at infinity", "INSERT INTO ledger.finding (scope, title, created_at) "
         "VALUES ('spec', 't', 'infinity')", {}, None, "LD003", "finding.created_at"),
    call("merge.merged_at in the future", INSERT_MERGE.replace(", branch)", ", branch, merged_at)").replace(
        "%(branch)s)", "%(branch)s, %(t)s)"), {**MERGE_ROW, "t": FAR_FUTURE},
         lambda c: fl.record_merge(c, "spec", "beef", ["b.py"], merged_at=FAR_FUTURE), "LD003", "merge.merged_at"),
    call("injection.injected_at in the future", "INSERT INTO ledger.injection (session_id, finding_id, injected_at) "
         "VALUES ('s-new', 1, %(t)s)", {"t": FAR_FUTURE}, None, "LD003", "injection.injected_at"),
    # --- replace_findings elements of a declared shape ------------------------------------
    review("element title a number", "LD003", "findings[1].title", [{"finding_key": "dup", "title": 5}]),
    review("element finding_key a number", "LD003", "findings[1].finding_key", [{"finding_key": 7, "title": "t"}]),
    review("element description an object", "LD003", "findings[1].description",
           [{"finding_key": "dup", "title": "t", "description": {"text": "x"}}]),
    review("element severity a boolean", "LD003", "findings[1].severity",
           [{"finding_key": "dup", "title": "t", "severity": True}]),
    review("element unknown field", "LD003", "findings[2].superseded_at",
           [{"finding_key": "dup", "title": "t"}, {"finding_key": "k2", "title": "t", "superseded_at": None}]),
    review("element misspelt field", "LD003", "findings[1].titel", [{"finding_key": "dup", "titel": "t"}]),
    review("element title null", "LD002", "findings[1].title", [{"finding_key": "dup", "title": None}]),
    # --- merges are immutable, redelivery must agree ----------------------------------------
    merge("commit_sha redelivered with other paths", "LD007", "merge.commit_sha", commit_sha="dddd"),
    merge("commit_sha redelivered with another message", "LD007", "message", commit_sha="DDDD",
          paths=["z.py"], message="rewritten"),
    merge("commit_sha redelivered with another branch", "LD007", "branch", commit_sha="dddd", paths=["z.py"],
          branch="main"),
    merge("commit_sha redelivered by its full sha with other paths", "LD007", "merge.commit_sha",
          commit_sha="dddd" + "0" * 36),
    call("merge.commit_sha redelivered with other paths, ON CONFLICT DO NOTHING",
         INSERT_MERGE + " ON CONFLICT (scope, commit_sha) DO NOTHING", {**MERGE_ROW, "commit_sha": "dddd"}, None,
         "LD007", "merge.commit_sha"),
    call("merge ON CONFLICT DO UPDATE SET message", INSERT_MERGE + " ON CONFLICT (scope, commit_sha) DO UPDATE "
         "SET message = EXCLUDED.message", {**MERGE_ROW, "commit_sha": "dddd", "message": "rewritten"}, None,
         "LD007", "message"),
    call("merge ON CONFLICT DO UPDATE of an identical row", INSERT_MERGE + " ON CONFLICT (scope, commit_sha) "
         "DO UPDATE SET node_id = EXCLUDED.node_id", {**MERGE_ROW, "commit_sha": "dddd", "paths": ["z.py"]}, None,
         "LD006", "immutable"),
    call("merge UPDATE of message", "UPDATE ledger.merge SET message = 'rewritten' WHERE commit_sha = 'dddd'", {},
         None, "LD006", "merge.message"),
    call("merge UPDATE of paths", "UPDATE ledger.merge SET paths = '{a.py}' WHERE commit_sha = 'dddd'", {}, None,
         "LD006", "merge.paths"),
    call("merge UPDATE of processed", "UPDATE ledger.merge SET processed = false", {}, None, "LD006",
         "merge.processed"),
    # --- duplicates ---------------------------------------------------------------------------
    finding("finding_key duplicate", "LD301", "finding.finding_key", finding_key="dup"),
    # (record_merge redelivers a duplicate on purpose: plain INSERT only; typed through the constraint)
    call("merge.commit_sha duplicate (plain INSERT)", INSERT_MERGE,
         {**MERGE_ROW, "commit_sha": "dddd", "paths": ["z.py"]}, None, "23505", "merge_scope_commit_sha_key"),
]


@pytest.fixture(scope="module")
def seeded(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[psycopg.Connection[Any]]:
    """One database for the whole module (every case must leave it as it
    found it, which each test asserts): scope 'spec' with an active finding
    1 on b.py (so a half-done bad merge would show), finding 2 with key
    'dup', finding 3 dismissed, finding 4 with slug 'seeded-slug'; merge
    'dddd'; an empty scope 'other'; issue 1 with task 1 completed, task 2
    running and task 3 queued; an injection of finding 1 into 'session-1'."""
    name = f"ledger_hostile_{os.getpid()}"
    admin_dsn = make_conninfo(**ledger_server)
    with catalog_lock(admin_dsn), psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(ledger_template)))
    try:
        with psycopg.connect(make_conninfo(**{**ledger_server, "dbname": name}), autocommit=True) as conn:
            fl.add_finding(conn, "spec", "b.py is stale", paths=["b.py"], kind="drift")
            fl.add_finding(conn, "spec", "keyed", paths=["c.py"], kind="drift", finding_key="dup")
            fl.add_finding(conn, "spec", "dismissed", paths=["d.py"], finding_key="gone")
            fl.dismiss_finding(conn, 3, "wont_fix", "alice", "seeded")
            fl.import_finding(conn, "spec", "slugged", slug="seeded-slug", paths=["e.py"])
            fl.record_merge(conn, "spec", "dddd", ["z.py"])
            fl.set_hygiene_mode(conn, "other", "on", create=True)
            issue_id = fl.add_issue(conn, "spec", "an issue", description="body").id
            for runtime in ("rt-done", "rt-run", "rt-queued"):
                fl.enqueue_task(conn, issue_id, "agent-1", runtime)
            fl.claim_task(conn, "rt-done")
            fl.start_task(conn, 1, session_id="sess-1")
            fl.complete_task(conn, 1)
            fl.claim_task(conn, "rt-run")
            fl.start_task(conn, 2)
            fl.record_injection(conn, "session-1", [1])
            yield conn
    finally:
        with catalog_lock(admin_dsn), psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


STATE = [
    "SELECT f.* FROM ledger.finding f ORDER BY id",
    "SELECT m.* FROM ledger.merge m ORDER BY id",
    "SELECT a.* FROM ledger.supersession a ORDER BY id",
    "SELECT s.* FROM ledger.scope s ORDER BY scope",
    "SELECT i.* FROM ledger.issue i ORDER BY id",
    "SELECT t.* FROM ledger.agent_task t ORDER BY id",
    "SELECT j.* FROM ledger.injection j ORDER BY session_id, finding_id",
]


def state(conn: psycopg.Connection[Any]) -> tuple[dict[str, int], list[list[tuple]]]:
    """Row counts of every ledger table and every row of the tables a case
    could change in place."""
    return counts(conn), [conn.execute(q).fetchall() for q in STATE]


def message_of(exc: psycopg.Error) -> str:
    return " ".join(filter(None, [exc.diag.message_primary, exc.diag.constraint_name]))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_through_sql(seeded: psycopg.Connection, case: Case) -> None:
    before = state(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(case.sql, case.params).fetchall()
    assert info.value.sqlstate == case.sqlstate, message_of(info.value)
    assert case.field in message_of(info.value)
    assert state(seeded) == before


@pytest.mark.parametrize("case", [c for c in CASES if c.api], ids=[c.name for c in CASES if c.api])
def test_bad_input_through_the_python_api(seeded: psycopg.Connection, case: Case) -> None:
    expected = SQLSTATE_ERRORS.get(case.sqlstate) or CONSTRAINT_ERRORS[case.field]
    before = state(seeded)
    assert case.api is not None
    with pytest.raises(expected) as info:
        case.api(seeded)
    assert type(info.value) is expected and info.value.sqlstate == case.sqlstate
    assert isinstance(info.value.__cause__, psycopg.Error)
    assert case.field in str(info.value) or case.field == info.value.__cause__.diag.constraint_name
    assert state(seeded) == before


VALID_BUT_HOSTILE = [
    # (title, paths, expected stored title, expected stored paths)
    ("'); DROP TABLE ledger.finding; --", ["src/x.py"], "'); DROP TABLE ledger.finding; --", ["src/x.py"]),
    (XFF + " and \\u0000 typed as text", ["a/" + XFF.replace("\\", "")], XFF + " and \\u0000 typed as text",
     ["a/xff"]),
    ("right-to-left \u202e override, emoji \U0001f600", ["naïve/日本.py"],
     "right-to-left \u202e override, emoji \U0001f600", ["naïve/日本.py"]),
    ("vivid: v at both ends v", ["v.py", "dev/v/", "v"], "vivid: v at both ends v", ["v.py", "dev/v/", "v"]),
    ("  padded  ", ["  src/a.py:12:4  ", "src\\win\\b.py"], "padded", ["src/a.py", "src/win/b.py"]),
]


@pytest.mark.parametrize(("title", "paths", "stored_title", "stored_paths"), VALID_BUT_HOSTILE)
def test_hostile_looking_valid_input_is_stored_exactly(
    ledger_conn: psycopg.Connection, title: str, paths: list[str], stored_title: str, stored_paths: list[str]
) -> None:
    f = fl.add_finding(ledger_conn, "spec", title, paths=paths, kind="drift")
    assert (f.title, f.paths) == (stored_title, stored_paths)


def test_a_merge_with_10000_paths_is_accepted(ledger_conn: psycopg.Connection) -> None:
    fid = fl.add_finding(ledger_conn, "spec", "p/9999.py is stale", paths=["p/9999.py"], kind="drift").id
    result = fl.record_merge(ledger_conn, "spec", "cafe", PATHS_10K, message=MB[:262_144])
    assert result.superseded == [fid]


@pytest.mark.parametrize("through", ["sql", "api"])
def test_an_invalid_snapshot_version_setting_claims_nothing(seeded: psycopg.Connection, through: str) -> None:
    """The deployment setting ledger.snapshot_version is input too: a value
    other than 1 or 2 fails the claim (LD003, naming the setting) before any
    task is dispatched."""
    before = state(seeded)
    with seeded.transaction():
        seeded.execute("SET LOCAL ledger.snapshot_version = 'v3'")
        if through == "sql":
            with pytest.raises(psycopg.Error) as info:
                seeded.execute("SELECT * FROM ledger.claim_task('rt-queued')")
            assert info.value.sqlstate == "LD003" and "ledger.snapshot_version" in message_of(info.value)
        else:
            with pytest.raises(fl.ValueInvalid) as typed:
                fl.claim_task(seeded, "rt-queued")
            assert "ledger.snapshot_version" in str(typed.value)
    assert state(seeded) == before
