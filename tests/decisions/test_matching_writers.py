"""The same merges give the same decisions whichever way they arrive:
the Python API (ledger.record_merge), a plain INSERT, a multi-row INSERT,
and COPY. The matcher is a statement trigger on ledger.merge
(_200_supersede), so there is nothing a writer could skip."""

from __future__ import annotations

import re
from typing import Any

import psycopg
from support.matching import add
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

FINDINGS = [
    dict(title="Retry storm after connection resets in the pool", key="F-41", keywords=["ECONNRESET_POOL"]),
    dict(title="Root pyproject.toml is missing nightshift workspace entries", key="F-42", kind="drift",
         paths=["pyproject.toml"]),
    dict(title="Flaky timeout test in the scheduler suite", key="F-421", slug="flaky-timeout"),
    dict(title="Shared keyword one", key="S-1", keywords=["ERR_SHARED"]),
    dict(title="Shared keyword two", key="S-2", keywords=["ERR_SHARED"]),
    dict(title="Review note on the parser", key="R-1", paths=["src/parser.py"]),
]

MERGES = [
    ("a0000001", "Fixes F-41", [], None),
    ("a0000002", "Add nightshift workspace entries\n\nsee F-421", ["pyproject.toml"], None),
    ("a0000003", "Fixes ERR_SHARED, refs `F-421`", [], None),
    ("a0000004", "Tidy the parser <!-- Fixes R-1 -->", ["src/parser.py"], None),
    ("a0000005", 'Revert "Fixes 2026-06-25-flaky-timeout.md"', [], None),
    ("a0000006", "Closes flaky-timeout", [], "feature/x"),
    ("a0000007", "fix(parser): does not fix R-1 yet", [], None),
    ("a0000008", "Resolves: flaky-timeout, R-1", [], "main"),
]


def setup_scope(conn: psycopg.Connection[Any], scope: str) -> dict[int, str]:
    ids = {add(conn, scope, f["title"], key=f["key"], slug=f.get("slug"), keywords=f.get("keywords", ()),
               kind=f.get("kind", "review"), paths=f.get("paths", ())): f["key"] for f in FINDINGS}
    fl.set_match_policy(conn, scope, default_branch="main")
    retire_drift_on_touch(conn, scope)  # the path rule as such on the drift findings
    return ids


def decisions(conn: psycopg.Connection[Any], scope: str, keys: dict[int, str]) -> list[tuple[Any, ...]]:
    def named(text: str | None) -> str | None:
        return None if text is None else re.sub(r"\b\d+\b", lambda m: keys.get(int(m.group()), m.group()), text)

    rows = conn.execute(
        "SELECT m.commit_sha, a.finding_id, a.action, a.rule, a.evidence, a.reason, a.detail - 'pieces' "
        "FROM ledger.supersession a JOIN ledger.merge m ON m.id = a.merge_id WHERE a.scope = %s ORDER BY a.id",
        (scope,)).fetchall()
    active = conn.execute(
        "SELECT finding_key FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL ORDER BY 1",
        (scope,)).fetchall()
    return [(sha, keys.get(fid), action, rule, ev, named(why), detail) for sha, fid, action, rule, ev, why, detail
            in rows] + [("active", *active)]


def test_api_insert_multirow_and_copy_decide_the_same(ledger_conn: psycopg.Connection[Any]) -> None:
    conn = ledger_conn
    keys = {scope: setup_scope(conn, scope) for scope in ("api", "insert", "multi", "copy")}

    for sha, msg, paths, branch in MERGES:
        fl.record_merge(conn, "api", sha, paths, message=msg, branch=branch)
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch) VALUES (%s, %s, %s, %s, %s)",
                     ("insert", sha, msg, paths, branch))
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(MERGES))
    conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch) VALUES " + values,
                 [v for sha, msg, paths, branch in MERGES for v in ("multi", sha, msg, paths, branch)])
    copy_sql = "COPY ledger.merge (scope, commit_sha, message, paths, branch) FROM STDIN"
    with conn.cursor() as cur, cur.copy(copy_sql) as cp:
        for sha, msg, paths, branch in MERGES:
            cp.write_row(("copy", sha, msg, paths, branch))

    api = decisions(conn, "api", keys["api"])
    assert decisions(conn, "insert", keys["insert"]) == api
    assert decisions(conn, "multi", keys["multi"]) == api
    assert decisions(conn, "copy", keys["copy"]) == api
    actions = [(sha, key, action) for sha, key, action, *_ in api[:-1]]
    assert actions == [
        ("a0000001", "F-41", "superseded"),
        ("a0000002", "F-42", "superseded"),      # drift finding, path touched (also a title mention)
        ("a0000002", "F-421", "mention"),
        ("a0000003", "F-421", "mention"),
        ("a0000003", "S-1", "ambiguous"),
        ("a0000003", "S-2", "ambiguous"),
        ("a0000004", "R-1", "candidate"),        # review finding: the path rule only records a candidate
        ("a0000005", "F-421", "mention"),
        ("a0000006", None, "skipped"),           # merge on feature/x, default branch main
        ("a0000006", "F-421", "skipped"),
        ("a0000007", "R-1", "mention"),
        ("a0000008", "F-421", "superseded"),
        ("a0000008", "R-1", "superseded"),
    ]
    assert api[-1] == ("active", ("S-1",), ("S-2",))


def test_api_returns_the_audit_rows_as_decisions(ledger_conn: psycopg.Connection[Any]) -> None:
    keys = setup_scope(ledger_conn, "s")
    res = fl.record_merge(ledger_conn, "s", "b0000001", message="Fixes ERR_SHARED and F-41\n\nsee flaky-timeout")
    audit = fl.read_audit(ledger_conn, "s", merge_id=res.merge_id)
    assert [(d.finding_id, d.action, d.rule, d.evidence, d.reason, d.detail) for d in res.decisions] == [
        (a.finding_id, a.action, a.rule, a.evidence, a.reason, a.detail) for a in audit]
    assert {keys[i] for i in res.superseded} == {"F-41"}
    assert {keys[d.finding_id] for d in res.by_action("ambiguous")} == {"S-1", "S-2"}
    amb = res.by_action("ambiguous")[0]
    assert amb.detail is not None and amb.detail["pieces"][0]["also_matches"]
    again = fl.record_merge(ledger_conn, "s", "b0000001", message="Fixes ERR_SHARED and F-41\n\nsee flaky-timeout\n")
    assert not again.recorded and again.decisions == res.decisions
