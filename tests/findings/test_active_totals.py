"""ledger.scope_active_total, the per-scope totals of the active findings
(count and prompt characters), is exactly what a count over ledger.finding
gives, after every way a finding is written and while several writers fill
one scope; and ledger.read_prompt_findings, which reads it for the omitted
figures and reads the included findings from the prompt-order index, returns
what the order and the prefix cut define (a reference computed here from the
rows themselves)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import psycopg
import pytest
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger import findings as lifecycle

_scopes = itertools.count()

DERIVED = """
SELECT f.scope, count(*), sum(length(f.title) + coalesce(1 + length(f.description), 0))
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL AND f.scope = ANY (%(scopes)s)
 GROUP BY f.scope ORDER BY 1"""
STORED = """
SELECT t.scope, sum(t.findings), sum(t.chars)
  FROM ledger.scope_active_total t
 WHERE t.scope = ANY (%(scopes)s)
 GROUP BY t.scope HAVING sum(t.findings) <> 0 OR sum(t.chars) <> 0 ORDER BY 1"""
SEVERITIES = ["critical", "high", "medium", "low", "info"]


def _check(conn: psycopg.Connection[Any], *scopes: str) -> list[tuple[Any, ...]]:
    derived = conn.execute(DERIVED, {"scopes": list(scopes)}).fetchall()
    assert conn.execute(STORED, {"scopes": list(scopes)}).fetchall() == derived
    return derived


def _scope() -> str:
    return f"tot-{next(_scopes)}"


def test_totals_follow_every_lifecycle_step(ledger_conn: psycopg.Connection[Any]) -> None:
    scope, other = _scope(), _scope()
    retire_drift_on_touch(ledger_conn, scope, other)  # merges below retire by a touch
    a = fl.add_finding(ledger_conn, scope, "a", paths=["src/a.py"], kind="drift", finding_key="ka",
                       description="about a")
    b = fl.add_finding(ledger_conn, scope, "b", paths=["src/b.py"], kind="drift", finding_key="kb")
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, description) VALUES "
        "(%s, 'm1', 'drift', '{x/1.py}', 'd'), (%s, 'm2', 'drift', '{x/}', NULL), (%s, 'o1', 'drift', '{}', 'dd')",
        (scope, scope, other))
    with ledger_conn.cursor().copy("COPY ledger.finding (scope, title, kind, paths) FROM STDIN") as copy:
        copy.write_row((scope, "c1", "drift", ["y/1.py"]))
        copy.write_row((other, "c2", "drift", ["y/"]))
    assert _check(ledger_conn, scope, other) == [
        (scope, 5, len("a about a") + len("b") + len("m1 d") + len("m2") + len("c1")),
        (other, 2, len("o1 dd") + len("c2"))]

    merge = fl.record_merge(ledger_conn, scope, "c0ffee1", ["src/b.py"])
    assert merge.superseded == [b.id]
    assert _check(ledger_conn, scope)[0][1] == 4
    lifecycle.report_finding(ledger_conn, scope, "kb", "b", paths=["src/b.py"], kind="drift")
    assert _check(ledger_conn, scope)[0][1] == 5
    lifecycle.report_finding(ledger_conn, scope, "kb", "b", paths=["src/b.py"], kind="drift")  # already active
    assert _check(ledger_conn, scope)[0][1] == 5
    lifecycle.dismiss_finding(ledger_conn, a.id, "wont_fix", "tester", "not now")
    assert _check(ledger_conn, scope)[0][1] == 4
    lifecycle.restore_finding(ledger_conn, a.id, "tester", "after all")
    assert _check(ledger_conn, scope)[0][1] == 5
    revert_of = fl.record_merge(ledger_conn, scope, "c0ffee2", ["src/a.py"])
    assert a.id in revert_of.superseded
    _check(ledger_conn, scope)
    fl.record_merge(ledger_conn, scope, "c0ffee3", [], message="Revert \"x\"\n\nThis reverts commit c0ffee2.")
    assert _check(ledger_conn, scope)[0][1] == 5

    ledger_conn.execute("UPDATE ledger.finding SET description = 'a much longer description' WHERE id = %s",
                        (b.id,))
    _check(ledger_conn, scope)
    ledger_conn.execute("UPDATE ledger.finding SET title = 'bb', description = NULL WHERE id = %s", (b.id,))
    _check(ledger_conn, scope)
    ledger_conn.execute("UPDATE ledger.finding SET scope = %s WHERE id = %s", (other, b.id))
    assert [r[1] for r in _check(ledger_conn, scope, other)] == [4, 3]
    ledger_conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE scope = %s", (other,))
    assert [r[0] for r in _check(ledger_conn, scope, other)] == [scope]


def test_rows_fold_and_the_sums_stay(ledger_conn: psycopg.Connection[Any]) -> None:
    scope = _scope()
    for i in range(100):
        ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, %s, 'drift')",
                            (scope, f"finding {i}"))
    assert _check(ledger_conn, scope) == [(scope, 100, sum(len(f"finding {i}") for i in range(100)))]
    rows = ledger_conn.execute("SELECT count(*) FROM ledger.scope_active_total WHERE scope = %s",
                               (scope,)).fetchone()
    assert rows is not None and rows[0] < 40, rows  # folded at least twice: 100 statements, 100 rows otherwise


def test_writers_into_one_scope_never_wait_for_each_other(ledger_conn: psycopg.Connection[Any],
                                                          ledger_dsn: str) -> None:
    """A writer holding an open transaction (its rows uncommitted, one of them
    a fold) does not block another writer of the same scope, which folds too;
    a REPEATABLE READ writer appends without folding. After all commit, the
    totals are the count."""
    scope = _scope()
    ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, 'first', 'drift')", (scope,))
    with psycopg.connect(ledger_dsn) as slow, psycopg.connect(ledger_dsn) as fast, \
            psycopg.connect(ledger_dsn) as rr:
        slow.execute("SET lock_timeout = '2s'")
        fast.execute("SET lock_timeout = '2s'")
        rr.execute("SET lock_timeout = '2s'")
        rr.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        rr.execute("SELECT 1")
        for i in range(40):  # at least one of these rows has an id that folds
            slow.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, %s, 'drift')",
                         (scope, f"slow {i}"))
        for i in range(40):
            fast.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, %s, 'drift')",
                         (scope, f"fast {i}"))
            fast.commit()
        for i in range(40):
            rr.execute("INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, %s, 'drift')",
                       (scope, f"rr {i}"))
        rr.commit()
        assert _check(ledger_conn, scope)[0][1] == 81
        slow.commit()
    assert _check(ledger_conn, scope)[0][1] == 121


def test_reconcile_corrects_totals_written_without_triggers(ledger_conn: psycopg.Connection[Any]) -> None:
    scope = _scope()
    kept = fl.add_finding(ledger_conn, scope, "kept", paths=["a/k.py"], kind="drift")
    fl.add_finding(ledger_conn, scope, "gone", paths=["a/g.py"], kind="drift")
    with ledger_conn.transaction():
        ledger_conn.execute("SET LOCAL session_replication_role = replica")
        ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) "
                            "VALUES (%s, 'replicated', 'drift', '{a/b.py}')", (scope,))
        ledger_conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE id = %s", (kept.id,))
    stored = ledger_conn.execute(STORED, {"scopes": [scope]}).fetchall()
    assert stored == [(scope, 2, len("kept") + len("gone"))]  # what the triggers saw
    ledger_conn.execute("SELECT * FROM ledger.reconcile(%s)", (scope,)).fetchall()
    assert _check(ledger_conn, scope) == [(scope, 2, len("gone") + len("replicated"))]
    count = "SELECT count(*) FROM ledger.scope_active_total WHERE scope = %s"
    before = ledger_conn.execute(count, (scope,)).fetchone()
    ledger_conn.execute("SELECT * FROM ledger.reconcile(%s)", (scope,)).fetchall()
    assert ledger_conn.execute(count, (scope,)).fetchone() == before  # nothing left to correct: no row added


def _reference(rows: list[tuple[Any, ...]], max_chars: int | None) -> tuple[list[int], int, int, int, int]:
    """The prompt order and prefix cut of read_prompt_findings' contract."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    ordered = sorted(rows, key=lambda r: (rank.get(r[1], 5), -r[2].timestamp(), -r[0]))
    ids: list[int] = []
    used = 0
    for fid, _, _, chars in ordered:
        if max_chars is not None and used + chars > max_chars:
            break
        ids.append(fid)
        used += chars
    total = sum(r[3] for r in rows)
    return ids, len(ids), used, len(rows) - len(ids), total - used


@pytest.mark.parametrize("budget", [0, 1, 57, 400, 4000, None])
def test_prompt_read_is_the_order_and_the_prefix_cut(ledger_conn: psycopg.Connection[Any], budget: int | None) -> None:
    scope = _scope()
    rnd = random.Random(budget or -1)
    rows = [(scope, f"t{i}" * rnd.randint(1, 6), "drift", rnd.choice(SEVERITIES),
             None if rnd.random() < 0.3 else "d" * rnd.randint(1, 30)) for i in range(300)]
    copy_sql = "COPY ledger.finding (scope, title, kind, severity, description) FROM STDIN"
    with ledger_conn.cursor().copy(copy_sql) as copy:
        for row in rows:
            copy.write_row(row)
    # re-reports and supersessions move findings in the order and out of the set
    ledger_conn.execute("UPDATE ledger.finding SET last_reported_at = now() - random() * interval '1 day' "
                        "WHERE scope = %s AND id %% 3 = 0", (scope,))
    ledger_conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE scope = %s AND id %% 7 = 0", (scope,))
    active = ledger_conn.execute(
        "SELECT id, severity, coalesce(last_reported_at, created_at), "
        "length(title) + coalesce(1 + length(description), 0) "
        "FROM ledger.finding WHERE scope = %s AND superseded_at IS NULL", (scope,)).fetchall()
    got = ledger_conn.execute("SELECT findings, included_count, included_chars, omitted_count, omitted_chars "
                              "FROM ledger.read_prompt_findings(%s, p_max_chars => %s)", (scope, budget)).fetchone()
    assert got is not None
    ids, *figures = _reference(active, budget)
    assert [f["id"] for f in got[0]] == ids
    assert list(got[1:]) == figures
    # with a filter the omitted figures are counted over the filtered candidates
    filtered = ledger_conn.execute(
        "SELECT findings, included_count, included_chars, omitted_count, omitted_chars "
        "FROM ledger.read_prompt_findings(%s, p_kinds => ARRAY['drift'], p_max_chars => %s)",
        (scope, budget)).fetchone()
    assert filtered == got
