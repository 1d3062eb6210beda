"""What each session was shown (injections, convergence) and reading for a
prompt (kinds, maximum age, severity then recency, a character budget)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s", "spec-07")

SCOPE = "spec-07"


def test_injections_are_recorded_once_per_pair_and_read_both_ways(ledger_conn: psycopg.Connection) -> None:
    ids = [fl.add_finding(ledger_conn, SCOPE, f"finding {i}", kind="drift").id for i in range(3)]
    assert fl.record_injection(ledger_conn, "07:2", ids) == fl.InjectionResult(recorded=3, already_recorded=0)
    assert fl.record_injection(ledger_conn, "07:2", [ids[0], ids[0], ids[1]]) == fl.InjectionResult(0, 2)
    assert fl.record_injection(ledger_conn, " 07:3 ", [ids[0]]) == fl.InjectionResult(1, 0)
    # a service writes the same pair with plain SQL: no second row
    ledger_conn.execute("INSERT INTO ledger.injection (session_id, finding_id) VALUES ('07:3', %s) "
                        "ON CONFLICT DO NOTHING", (ids[0],))

    seen = fl.read_injections(ledger_conn, session_id="07:2")
    assert [(i.finding_id, i.title, i.state) for i in seen] == [(ids[0], "finding 0", "active"),
                                                                (ids[1], "finding 1", "active"),
                                                                (ids[2], "finding 2", "active")]
    assert [i.session_id for i in fl.read_injections(ledger_conn, finding_id=ids[0])] == ["07:2", "07:3"]
    assert fl.read_injections(ledger_conn, finding_id=ids[2], session_id="07:3") == []
    assert ledger_conn.execute("SELECT count(*) FROM ledger.injection").fetchone() == (4,)


@pytest.mark.parametrize(
    ("session", "ids", "error"),
    [("", [1], fl.ValueRequired), ("s", [1, None], fl.ValueRequired),
     ("s", [1, 999], fl.NotFound), ("bad\nsession", [1], fl.ValueInvalid)],
)
def test_record_injection_rejects_bad_input(ledger_conn: psycopg.Connection, session: str, ids: Any,
                                            error: type[Exception]) -> None:
    assert fl.add_finding(ledger_conn, SCOPE, "x").id == 1
    with pytest.raises(error):
        fl.record_injection(ledger_conn, session, ids)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.injection").fetchone() == (0,)


def test_injection_queries_reject_unknown_input(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.ValueRequired):
        fl.read_injections(ledger_conn)
    with pytest.raises(fl.NotFound):
        fl.read_injections(ledger_conn, finding_id=42)
    with pytest.raises(fl.NotFound):
        fl.measure_convergence(ledger_conn, "never-shown-anything")
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.injection (session_id, finding_id) VALUES ('s', 42)")
    assert info.value.sqlstate == "LD005"
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT * FROM ledger.record_injection('s', NULL)")
    assert info.value.sqlstate == "LD002"


def test_convergence_is_the_share_still_active(ledger_conn: psycopg.Connection) -> None:
    f = [fl.add_finding(ledger_conn, SCOPE, f"finding {i}", paths=[f"src/f{i}.py"], kind="drift").id
         for i in range(4)]
    fl.record_injection(ledger_conn, "07:2", f)
    fl.record_injection(ledger_conn, "07:6", f[3:])
    before = fl.measure_convergence(ledger_conn, "07:2")
    assert (before.shown, before.still_active, before.active_share) == (4, 4, Decimal("1.0000"))

    fl.record_merge(ledger_conn, SCOPE, "aaaa0001", ["src/f0.py", "src/f1.py"], node_id="07:2")
    fl.dismiss_finding(ledger_conn, f[2], "wont_fix", "alice", "out of scope")
    after = fl.measure_convergence(ledger_conn, "07:2")
    assert after == fl.Convergence(session_id="07:2", shown=4, still_active=1, superseded=2, dismissed=1,
                                   active_share=Decimal("0.2500"))
    assert fl.measure_convergence(ledger_conn, "07:6").active_share == Decimal("1.0000")
    assert [i.state for i in fl.read_injections(ledger_conn, session_id="07:2")] == [
        "superseded", "superseded", "dismissed", "active"]


def add(conn: psycopg.Connection[Any], title: str, severity: str, age: str, description: str | None = None,
        kind: str = "drift") -> int:
    row = conn.execute(
        "INSERT INTO ledger.finding (scope, title, description, severity, kind, created_at) "
        "VALUES (%s, %s, %s, %s, %s, now() - %s::interval) RETURNING id",
        (SCOPE, title, description, severity, kind, age)).fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture
def prompt_scope(ledger_conn: psycopg.Connection) -> dict[str, int]:
    ids = {
        "low-new": add(ledger_conn, "L" * 10, "low", "1 minute"),                      # 10 chars
        "high-old": add(ledger_conn, "H" * 20, "high", "3 days", "d" * 29),              # 50 chars
        "high-new": add(ledger_conn, "N" * 30, "high", "1 hour"),                        # 30 chars
        "crit-mid": add(ledger_conn, "C" * 40, "critical", "2 hours", "x" * 19),         # 60 chars
        "review": add(ledger_conn, "R" * 5, "critical", "1 minute", kind="review"),      # 5 chars
        "gone": add(ledger_conn, "G" * 5, "critical", "1 minute"),
    }
    ledger_conn.execute("UPDATE ledger.finding SET superseded_at = now(), superseded_by = 'x' WHERE id = %s",
                        (ids["gone"],))
    return ids


def test_prompt_order_is_severity_then_recency(ledger_conn: psycopg.Connection,
                                               prompt_scope: dict[str, int]) -> None:
    sel = fl.read_prompt_findings(ledger_conn, SCOPE)
    order = {v: k for k, v in prompt_scope.items()}
    assert [order[f.id] for f in sel.findings] == ["review", "crit-mid", "high-new", "high-old", "low-new"]
    assert (sel.included_count, sel.included_chars, sel.omitted_count, sel.omitted_chars) == (5, 155, 0, 0)
    assert sel.included_chars == sum(len(f.prompt_text()) for f in sel.findings)
    assert [f.id for f in sel.findings] == [f.id for f in fl.active_findings(ledger_conn, SCOPE)]


def test_prompt_budget_cut_counts_what_is_left_out(ledger_conn: psycopg.Connection,
                                                   prompt_scope: dict[str, int]) -> None:
    sel = fl.read_prompt_findings(ledger_conn, SCOPE, kinds=["DRIFT"], max_chars=100)
    order = {v: k for k, v in prompt_scope.items()}
    # crit-mid (60) + high-new (30) = 90 fit; high-old (50) does not; the cut is a prefix,
    # so low-new (10) is left out too although it would fit
    assert [order[f.id] for f in sel.findings] == ["crit-mid", "high-new"]
    assert (sel.included_count, sel.included_chars, sel.omitted_count, sel.omitted_chars) == (2, 90, 2, 60)
    assert sel.findings[0].prompt_text() == "C" * 40 + "\n" + "x" * 19

    nothing = fl.read_prompt_findings(ledger_conn, SCOPE, max_chars=0)
    assert (nothing.findings, nothing.included_chars, nothing.omitted_count, nothing.omitted_chars) == (
        [], 0, 5, 155)


def test_prompt_max_age_counts_from_the_last_report(ledger_conn: psycopg.Connection,
                                                    prompt_scope: dict[str, int]) -> None:
    order = {v: k for k, v in prompt_scope.items()}
    sel = fl.read_prompt_findings(ledger_conn, SCOPE, max_age=timedelta(hours=1, minutes=30))
    assert [order[f.id] for f in sel.findings] == ["review", "high-new", "low-new"]
    assert sel.omitted_count == 0  # filtered by age, not cut by the budget
    # a re-report refreshes an old finding
    ledger_conn.execute("UPDATE ledger.finding SET finding_key = 'OLD' WHERE id = %s", (prompt_scope["high-old"],))
    assert fl.report_finding(ledger_conn, SCOPE, "OLD", "again").outcome == "duplicate"
    sel = fl.read_prompt_findings(ledger_conn, SCOPE, max_age=timedelta(hours=1, minutes=30))
    assert [order[f.id] for f in sel.findings] == ["review", "high-old", "high-new", "low-new"]


def test_prompt_read_rejects_bad_input(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.NotFound):
        fl.read_prompt_findings(ledger_conn, "no-such-scope")
    fl.add_finding(ledger_conn, SCOPE, "x")
    with pytest.raises(fl.ValueInvalid):
        fl.read_prompt_findings(ledger_conn, SCOPE, max_chars=-1)
    with pytest.raises(fl.ValueInvalid):
        fl.read_prompt_findings(ledger_conn, SCOPE, max_age=timedelta(hours=-1))
