"""Hostile and malformed input (issue 7), table-driven: every public column
and function argument of the foundation, with NULLs where a value is
required, empty strings, very long values (1 MB text, 10,000 paths),
'..', absolute paths, control characters, non-UTF-8-looking escapes typed
as text, unknown hygiene modes, unknown scopes and ids.

Each case is one line. It is sent twice: as the SQL a service would write,
which must fail with the project SQLSTATE and a message naming the field;
and through the Python API, which must raise the typed exception for that
SQLSTATE, naming the field too. Either way every ledger table keeps its row
count and no finding or scope changes (all cases share one seeded database,
so a case that wrote anything would also show in the next one).
Cases without a Python call are SQL utilities the API does not wrap.

Extend it with one line per new column or argument (claims, lifecycle,
matching): a Case with the statement, the API call, the code and the field.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from security_helpers import counts

import findings_ledger as fl
from findings_ledger.errors import CONSTRAINT_ERRORS, SQLSTATE_ERRORS

MB = "x" * 1_048_576
PATHS_10K = [f"p/{i}.py" for i in range(10_000)]
PATHS_100K = [f"p/{i}.py" for i in range(100_001)]
XFF = "\\xff"  # the four characters \ x f f, typed as text (a byte escape that is not one)


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
MERGE_ROW = {"scope": "spec", "commit_sha": "beef", "node_id": None, "message": "", "paths": ["b.py"]}
INSERT_MERGE = (
    "INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths) "
    "VALUES (%(scope)s, %(commit_sha)s, %(node_id)s, %(message)s, %(paths)s)"
)


def finding(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**FINDING_ROW, **values}
    return Case(f"finding.{name}", INSERT_FINDING, row, lambda c: fl.add_finding(
        c, row["scope"], row["title"], description=row["description"], paths=row["paths"], kind=row["kind"],
        severity=row["severity"], finding_key=row["finding_key"], source=row["source"]), sqlstate, field)


def merge(name: str, sqlstate: str, field: str, **values: Any) -> Case:
    row = {**MERGE_ROW, **values}
    return Case(f"merge.{name}", INSERT_MERGE, row, lambda c: fl.record_merge(
        c, row["scope"], row["commit_sha"], row["paths"], message=row["message"], node_id=row["node_id"]),
        sqlstate, field)


def scope(name: str, sqlstate: str, field: str, scope: Any = "spec-2", mode: Any = "on") -> Case:
    return Case(f"scope.{name}", "INSERT INTO ledger.scope (scope, hygiene_mode) VALUES (%(scope)s, %(mode)s)",
                {"scope": scope, "mode": mode}, lambda c: fl.set_hygiene_mode(c, scope, mode), sqlstate, field)


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
    # --- duplicates: typed through the constraint -----------------------------------------
    finding("finding_key duplicate", "23505", "finding_scope_finding_key_key", finding_key="dup"),
    # (record_merge redelivers a duplicate on purpose: plain INSERT only)
    call("merge.commit_sha duplicate (plain INSERT)", INSERT_MERGE, {**MERGE_ROW, "commit_sha": "dddd"}, None,
         "23505", "merge_scope_commit_sha_key"),
]


@pytest.fixture(scope="module")
def seeded(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[psycopg.Connection[Any]]:
    """One database for the whole module (every case must leave it as it
    found it, which each test asserts): scope 'spec' with an active finding
    on b.py (so a half-done bad merge would show) and a finding with key
    'dup'; merge 'dddd'; an empty scope 'other'."""
    name = f"ledger_hostile_{os.getpid()}"
    admin_dsn = make_conninfo(**ledger_server)
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(ledger_template)))
    try:
        with psycopg.connect(make_conninfo(**{**ledger_server, "dbname": name}), autocommit=True) as conn:
            fl.add_finding(conn, "spec", "b.py is stale", paths=["b.py"], kind="drift")
            fl.add_finding(conn, "spec", "keyed", paths=["c.py"], kind="drift", finding_key="dup")
            fl.record_merge(conn, "spec", "dddd", ["z.py"])
            fl.set_hygiene_mode(conn, "other", "on")
            yield conn
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def state(conn: psycopg.Connection[Any]) -> tuple[dict[str, int], list[tuple]]:
    findings = conn.execute("SELECT id, scope, title, paths, superseded_at FROM ledger.finding ORDER BY id").fetchall()
    return counts(conn), findings + conn.execute("SELECT scope, hygiene_mode FROM ledger.scope ORDER BY 1").fetchall()


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
