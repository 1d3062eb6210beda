"""Hunks and anchors at the ends of the line-number range: every number a merge's hunks and a finding's anchor may
hold (up to 2147483647) is compared and summed without overflow, so whether
a merge is accepted never depends on the findings of its scope, and an
anchor moved past the last line number stays on it."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from support.touch_policy import RETIRE_DRIFT_SQL

MAX = 2147483647


def anchored(conn: psycopg.Connection[Any], scope: str, path: str) -> int:
    """An anchored drift finding in a scope that retires on a touch (the path rule as such)."""
    conn.execute(RETIRE_DRIFT_SQL, (scope,))
    row = conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, 'x', 'drift', %s) "
                       "RETURNING id", (scope, [path])).fetchone()
    assert row is not None
    return int(row[0])


def merge(conn: psycopg.Connection[Any], scope: str, sha: str, hunks: dict[str, Any]) -> list[tuple[Any, ...]]:
    mid = conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES (%s, %s, '{src/a.py}', %s) "
                       "RETURNING id", (scope, sha, Jsonb(hunks))).fetchone()
    assert mid is not None
    return conn.execute("SELECT action, rule FROM ledger.supersession WHERE merge_id = %s ORDER BY id",
                        (mid[0],)).fetchall()


def anchors(conn: psycopg.Connection[Any], fid: int) -> Any:
    row = conn.execute("SELECT anchors, superseded_at IS NULL FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert row is not None
    return row


def test_the_largest_hunk_below_an_anchor_keeps_it(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = anchored(ledger_conn, "ov1", "src/a.py:42")
    assert merge(ledger_conn, "ov1", "aaaa0001", {"src/a.py": [[MAX, MAX, 1, 1]]}) == []  # kept: no row
    assert anchors(ledger_conn, fid) == ({"src/a.py": [42, 42]}, True)


def test_an_anchor_on_the_last_line_number_with_line_context(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = anchored(ledger_conn, "ov3", f"src/a.py:{MAX}")
    ledger_conn.execute("SELECT ledger.set_match_policy('ov3', p_line_context => 3)")
    assert merge(ledger_conn, "ov3", "bbbb0001", {"src/a.py": [[5, 1, 5, 1]]}) == []  # kept: no row
    assert merge(ledger_conn, "ov3", "bbbb0002", {"src/a.py": [[MAX, 1, MAX, 1]]}) == [("superseded", "path")]
    assert anchors(ledger_conn, fid)[1] is False


def test_an_anchor_moved_past_the_last_line_number_stays_on_it(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = anchored(ledger_conn, "ov2", "src/a.py:42")
    assert merge(ledger_conn, "ov2", "cccc0001", {"src/a.py": [[1, 0, 1, MAX]]}) == [("anchor_moved", "path")]
    assert anchors(ledger_conn, fid) == ({"src/a.py": [MAX, MAX]}, True)
    top = anchored(ledger_conn, "ov4", f"src/a.py:{MAX}")
    assert merge(ledger_conn, "ov4", "dddd0001", {"src/a.py": [[1, 0, 1, 1]]}) == [("anchor_moved", "path")]
    assert anchors(ledger_conn, top) == ({"src/a.py": [MAX, MAX]}, True)
