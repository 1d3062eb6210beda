"""The anchor lane of ledger._apply_merge against the full path (hypothesis).

A merge whose only decisions are anchor moves is written straight from
ledger._match_changes' rows, without ledger._merge_decisions. Each example
builds a scope (touch modes, path rule on or off, a default branch, line
context, hygiene mode on or dry), findings anchored on two files (kinds, checks, observed before or
after the merge, a second anchored path, a directory reference) and a merge
with random hunks (git-like or shuffled, a deleted file, a rename), then
records the merge twice, each time in a transaction rolled back: with the
message "Tidy the loader", which the message pre-filter rules out (the
lane, when the decisions allow it), and with "Tidy the `loader`", which it
lets through (a backtick: the full matcher decides, finds nothing, and the
full path runs). The audit rows, read per finding as ledger.read_audit
gives them, the findings' anchors, paths and state and the recheck and
file-state requests must be the same. With track_functions (a superuser),
the example also checks which path ran: the lane exactly when the full path
wrote nothing but the merge's anchor record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb
from support.matching import module_conn, module_dsn  # noqa: F401

FILES = ["src/a.py", "src/b.py"]
MERGED_AT = datetime(2026, 6, 1, tzinfo=UTC)
AUDIT = ("SELECT a.finding_id, a.action, a.rule, a.evidence, a.reason, a.detail "
         "FROM ledger.read_audit(%s) AS a WHERE a.merge_id = %s ORDER BY a.finding_id NULLS FIRST, a.action, a.reason")
STATE = ("SELECT id, anchors, paths, superseded_at IS NULL, supersede_rule FROM ledger.finding "
         "WHERE scope = %s ORDER BY id")
REQUESTS = ("SELECT 'recheck', finding_id FROM ledger.recheck_request WHERE merge_id = %s "
            "UNION ALL SELECT 'file_state', finding_id FROM ledger.file_state_request WHERE merge_id = %s "
            "ORDER BY 1, 2")


@st.composite
def hunks(draw: Any) -> list[list[int]]:
    n = draw(st.integers(0, 12))
    out, line, new = [], draw(st.integers(0, 10)), 0
    for _ in range(n):
        line += draw(st.integers(1, 15))
        b, d = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        if b == d == 0:
            d = 1
        out.append([line, b, max(0, line + new), d])
        new += d - b
        line += max(b, 1) - 1
    return draw(st.permutations(out)) if n > 1 and draw(st.integers(0, 5)) == 0 else out


FINDING = st.fixed_dictionaries({
    "kind": st.sampled_from(["drift", "drift", "review", "bug"]),
    "file": st.sampled_from(FILES),
    "first": st.integers(1, 120),
    "span": st.integers(0, 4),
    "second": st.sampled_from([None] * 9 + ["src/b.py:30", "src/", "src/c.py:5"]),
    "check": st.sampled_from([None] * 12 + [{"all": [{"path_absent": "src/a.py"}]}]),
    "after": st.sampled_from([False] * 6 + [True]),
})
POLICY = st.fixed_dictionaries({
    "touch": st.sampled_from(["retire"] * 6 + ["recheck", "flag"]),
    "review_touch": st.sampled_from([None, None, "flag"]),
    "kinds": st.sampled_from([None, None, ["drift", "review"], ["*"]]),
    "rules": st.sampled_from([None] * 8 + [["key", "slug", "keyword", "title"]]),
    "branch": st.sampled_from([None] * 8 + ["main"]),
    "context": st.integers(0, 3),
    "hygiene": st.sampled_from(["on", "on", "on", "dry"]),
})


@pytest.fixture(scope="module")
def conn(module_conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:  # noqa: F811
    yield module_conn


def _calls(conn: psycopg.Connection[Any]) -> int:
    """The calls of ledger._merge_decisions this backend counted and has not reported yet (a
    transaction's own are the difference of two reads in it)."""
    got = conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions "
                       "WHERE schemaname = 'ledger' AND funcname = '_merge_decisions'").fetchone()
    return int(got[0]) if got else 0


def _record(conn: psycopg.Connection[Any], policy: dict[str, Any], findings: list[dict[str, Any]],
            change: dict[str, Any], message: str, tracked: bool) -> tuple[Any, ...]:
    with conn.transaction(force_rollback=True):
        scope = "lane"
        conn.execute("SELECT ledger.set_match_policy(%s, p_enabled_rules => %s, p_path_supersede_kinds => %s, "
                     "p_default_branch => %s, p_line_context => %s, p_create => true, p_touch => %s, "
                     "p_touch_kind => 'drift')",
                     (scope, policy["rules"], policy["kinds"], policy["branch"], policy["context"], policy["touch"]))
        if policy["hygiene"] != "on":
            conn.execute("SELECT ledger.set_hygiene_mode(%s, %s)", (scope, policy["hygiene"]))
        if policy["review_touch"]:
            conn.execute("SELECT ledger.set_match_policy(%s, p_touch => %s, p_touch_kind => 'review')",
                         (scope, policy["review_touch"]))
        ids: dict[int, int] = {}  # finding id -> its place in findings (ids differ between the two runs)
        for i, f in enumerate(findings):
            paths = [f"{f['file']}:{f['first']}-{f['first'] + f['span']}"] + ([f["second"]] if f["second"] else [])
            observed = MERGED_AT + (timedelta(days=2) if f["after"] else -timedelta(days=2))
            fid = conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
                               "VALUES (%s, 'a note', %s, %s, %s, %s) RETURNING id",
                               (scope, f["kind"], paths, observed,
                                None if f["check"] is None else Jsonb(f["check"]))).fetchone()
            assert fid is not None
            ids[int(fid[0])] = i
        before = 0
        if tracked:
            conn.execute("SET LOCAL track_functions = 'pl'")
            before = _calls(conn)
        row = conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, message, paths, merged_at, branch, added, deleted, hunks) "
            "VALUES (%s, 'abcdef1234', %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (scope, message, change["paths"], MERGED_AT, change["branch"], change["added"], change["deleted"],
             json.dumps(change["hunks"]))).fetchone()
        assert row is not None
        merge_id = row[0]
        audit = [(None if r[0] is None else ids[r[0]], *r[1:])
                 for r in conn.execute(AUDIT, (scope, merge_id)).fetchall()]
        state = [(ids[r[0]], *r[1:]) for r in conn.execute(STATE, (scope,)).fetchall()]
        requests = [(r[0], ids[r[1]]) for r in conn.execute(REQUESTS, (merge_id, merge_id)).fetchall()]
        record = conn.execute("SELECT count(*) FROM ledger.supersession WHERE merge_id = %s AND finding_id IS NULL "
                              "AND action = 'anchor_moved'", (merge_id,)).fetchone()
        others = conn.execute("SELECT count(*) FROM ledger.supersession WHERE merge_id = %s AND finding_id IS NOT NULL",
                              (merge_id,)).fetchone()
        calls = None
        if tracked:
            calls = _calls(conn) - before
    assert record is not None and others is not None
    return audit, state, requests, int(record[0]), int(others[0]), calls


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(policy=POLICY, findings=st.lists(FINDING, min_size=1, max_size=6), hunks_a=hunks(), hunks_b=hunks(),
       delete=st.sampled_from([None] * 6 + ["deleted", "renamed"]), branch=st.sampled_from([None, None, "main", "dev"]))
def test_the_lane_decides_what_the_full_path_decides(conn: psycopg.Connection[Any], policy: dict[str, Any],
                                                    findings: list[dict[str, Any]], hunks_a: list[list[int]],
                                                    hunks_b: list[list[int]], delete: str | None,
                                                    branch: str | None) -> None:
    su = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    tracked = bool(su and su[0])
    change = {"paths": ["src/a.py", "src/b.py"] + (["lib/a.py"] if delete == "renamed" else []),
              "added": ["lib/a.py"] if delete == "renamed" else [],
              "deleted": ["src/a.py"] if delete else [],
              "hunks": {"src/a.py": hunks_a, "src/b.py": hunks_b}, "branch": branch}
    lane = _record(conn, policy, findings, change, "Tidy the loader", tracked)
    full = _record(conn, policy, findings, change, "Tidy the `loader`", tracked)
    assert lane[:5] == full[:5]
    if tracked:
        assert full[5] == 1  # the full path ran _merge_decisions
        # the lane ran exactly when the full path wrote nothing but the anchor record, for a merge the lane
        # may take (the path rule on, on the default branch or none)
        may = policy["rules"] is None and not (policy["branch"] and branch and branch != policy["branch"])
        assert (lane[5] == 0) == (may and full[4] == 0), (lane[3:], full[3:])
