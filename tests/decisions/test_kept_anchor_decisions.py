"""A merge that touches an anchored file away from the finding's lines, with
no net change of lines above them (the anchor stays): the finding decides
nothing and gets no audit row, unless the scope's policy counts that touch.
ledger._merge_decisions stops early for a finding whose every piece is such a
kept anchor; these are the cases where it must not: a finding with a check
(resolved_when), the path rule not enabled, a touch mode that counts any
touch (flag, recheck), and a kept anchor beside a message piece of the same
finding (the kept piece outranks a mention, so the finding still gets no
row)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

_scopes = itertools.count()
# a hunk far below line 10 that adds and removes one line each: the anchor on line 10 stays
HUNKS = json.dumps({"src/a.py": [[200, 1, 200, 1]]})


def _scope(conn: psycopg.Connection[Any], **policy: Any) -> str:
    scope = f"kept-{next(_scopes)}"
    named = "".join(f", p_{name} => %s" for name in policy)
    conn.execute(f"SELECT ledger.set_match_policy(%s, p_create => true{named})", (scope, *policy.values()))
    return scope


def _finding(conn: psycopg.Connection[Any], scope: str, kind: str = "review", check: Any = None,
             title: str = "a note on the loader") -> int:
    row = conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at, resolved_when) "
        "VALUES (%s, %s, %s, '{src/a.py:10}', now() - interval '1 day', %s) RETURNING id",
        (scope, title, kind, None if check is None else Jsonb(check))).fetchone()
    assert row is not None
    return int(row[0])


def _actions(conn: psycopg.Connection[Any], scope: str, fid: int, message: str = "Tidy the loader") -> list[str]:
    row = conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, hunks) "
                       "VALUES (%s, 'abcd1234', %s, '{src/a.py}', %s) RETURNING id",
                       (scope, message, HUNKS)).fetchone()
    assert row is not None
    anchors = conn.execute("SELECT anchors FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert anchors is not None and anchors[0] == {"src/a.py": [10, 10]}  # the anchor stayed
    return [r[0] for r in conn.execute("SELECT action FROM ledger.supersession WHERE merge_id = %s "
                                       "AND finding_id = %s ORDER BY id", (row[0], fid)).fetchall()]


def test_a_kept_anchor_decides_nothing(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn)
    assert _actions(ledger_conn, scope, _finding(ledger_conn, scope)) == []


def test_a_kept_anchor_of_a_drift_finding_under_retire_decides_nothing(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn, touch="retire", touch_kind="drift")
    assert _actions(ledger_conn, scope, _finding(ledger_conn, scope, kind="drift")) == []


def test_a_kept_anchor_under_flag_is_flagged(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn, touch="flag", touch_kind="drift")
    assert _actions(ledger_conn, scope, _finding(ledger_conn, scope, kind="drift")) == ["flagged"]


def test_a_kept_anchor_under_recheck_asks_for_a_recheck(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn, touch="recheck", touch_kind="drift")
    assert _actions(ledger_conn, scope, _finding(ledger_conn, scope, kind="drift")) == ["recheck_requested"]


def test_a_kept_anchor_of_a_checked_finding_asks_its_check(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn)
    fid = _finding(ledger_conn, scope, check={"all": [{"path_absent": "src/a.py"}]})
    assert _actions(ledger_conn, scope, fid) == ["check_requested"]


def test_a_kept_anchor_with_the_path_rule_disabled_is_skipped(ledger_conn: psycopg.Connection) -> None:
    scope = _scope(ledger_conn, enabled_rules=["key", "slug", "keyword", "title"])
    assert _actions(ledger_conn, scope, _finding(ledger_conn, scope)) == ["skipped"]


def test_a_kept_anchor_outranks_a_mention_of_the_same_finding(ledger_conn: psycopg.Connection) -> None:
    """The message mentions the finding's title words without resolving it
    (a mention); its kept anchor ranks above the mention, so the finding's
    best outcome is anchor_kept: no row. The same message with the file
    untouched writes the mention."""
    scope = _scope(ledger_conn)
    title = "loader cache misses stale entries"
    fid = _finding(ledger_conn, scope, title=title)
    assert _actions(ledger_conn, scope, fid, message=f"Notes on {title}") == []
    row = ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths) "
                              "VALUES (%s, 'dcba4321', %s, '{src/other.py}') RETURNING id",
                              (scope, f"Notes on {title}")).fetchone()
    assert row is not None
    got = [r[0] for r in ledger_conn.execute("SELECT action FROM ledger.supersession WHERE merge_id = %s "
                                             "AND finding_id = %s", (row[0], fid)).fetchall()]
    assert got == ["mention"]
