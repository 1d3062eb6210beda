"""Identity and re-reports: report_finding's four outcomes, the
plain-INSERT path of a duplicate key (LD301), nothing ever deleted, and the
consistency of the lifecycle columns however they are written."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec-07", "spec-08")

SCOPE = "spec-07"


def state(conn: psycopg.Connection[Any], finding_id: int) -> tuple[Any, ...]:
    row = conn.execute(
        "SELECT state, report_count, reopen_count, resolution FROM ledger.finding_lifecycle WHERE id = %s",
        (finding_id,),
    ).fetchone()
    assert row is not None
    return tuple(row)


def actions(conn: psycopg.Connection[Any], finding_id: int) -> list[tuple[str, str | None]]:
    return [
        (a.action, a.rule) for a in fl.read_audit(conn, SCOPE, finding_id=finding_id)
    ]


def test_report_new_then_duplicate_counts_the_rereport(ledger_conn: psycopg.Connection) -> None:
    first = fl.report_finding(ledger_conn, SCOPE, "D-1", "packages/nightshift/ does not exist",
                              paths=["packages/nightshift/"], kind="drift", review_run="g0")
    assert (first.outcome, first.state, first.report_count, first.reopen_count) == ("new", "active", 1, 0)
    again = fl.report_finding(ledger_conn, SCOPE, " D-1 ", "packages/nightshift/ does not exist", kind="drift",
                              review_run="g1")
    assert (again.finding_id, again.outcome, again.state, again.report_count) == (first.finding_id, "duplicate",
                                                                                 "active", 2)
    row = ledger_conn.execute(
        "SELECT count(*), min(last_reported_at) IS NOT NULL, min(review_run) FROM ledger.finding").fetchone()
    assert row == (1, True, "g1")
    assert actions(ledger_conn, first.finding_id) == []


def test_rereport_of_a_superseded_finding_reopens_it(ledger_conn: psycopg.Connection) -> None:
    f = fl.report_finding(ledger_conn, SCOPE, "D-1", "nightshift.py still exists",
                          paths=["packages/af/af/nightshift.py"], kind="drift")
    merge = fl.record_merge(ledger_conn, SCOPE, "a1b2c3d4", ["packages/af/af/nightshift.py"], node_id="group-2")
    assert merge.superseded == [f.finding_id]
    assert state(ledger_conn, f.finding_id)[0] == "superseded"

    again = fl.report_finding(ledger_conn, SCOPE, "D-1", "nightshift.py still exists", source="drift-g4",
                              review_run="g4")
    assert (again.outcome, again.state, again.report_count, again.reopen_count) == ("reopened", "active", 2, 1)
    assert [a.id for a in fl.active_findings(ledger_conn, SCOPE)] == [f.finding_id]
    audit = fl.read_audit(ledger_conn, SCOPE, finding_id=f.finding_id)
    assert [(a.action, a.rule) for a in audit] == [("superseded", "path"), ("reopened", "rereport")]
    reopen = audit[1]
    assert (reopen.actor, reopen.evidence) == ("drift-g4", "g4")
    assert reopen.detail is not None
    assert reopen.detail["from_state"] == "superseded"
    assert reopen.detail["superseded_by_merge_id"] == merge.merge_id
    row = ledger_conn.execute(
        "SELECT superseded_at, superseded_by, superseded_by_merge_id, supersede_rule FROM ledger.finding").fetchone()
    assert row == (None, None, None, None)
    # back in the partial GIN index: the next merge touching the file supersedes it again
    assert fl.record_merge(ledger_conn, SCOPE, "e5f6a7b8", ["packages/af/af/nightshift.py"]).superseded == [
        f.finding_id]


def test_dismissed_finding_stays_dismissed_on_rereport(ledger_conn: psycopg.Connection) -> None:
    f = fl.report_finding(ledger_conn, SCOPE, "D-2", "tests not migrated", kind="drift")
    fl.dismiss_finding(ledger_conn, f.finding_id, "wont_fix", "alice", "tests stay where they are")
    again = fl.report_finding(ledger_conn, SCOPE, "D-2", "tests not migrated", kind="drift")
    assert (again.outcome, again.state, again.report_count, again.reopen_count) == ("still_dismissed",
                                                                                   "dismissed", 2, 0)
    assert state(ledger_conn, f.finding_id) == ("dismissed", 2, 0, "wont_fix")
    assert actions(ledger_conn, f.finding_id) == [("dismissed", "manual")]
    assert fl.active_findings(ledger_conn, SCOPE) == []


def test_dismissed_finding_stays_dismissed_on_a_resolving_merge(ledger_conn: psycopg.Connection) -> None:
    f = fl.report_finding(ledger_conn, SCOPE, "D-3", "app.py registers night-shift",
                          paths=["packages/af/af/app.py"], kind="drift")
    other = fl.report_finding(ledger_conn, SCOPE, "D-4", "app.py imports night-shift",
                              paths=["packages/af/af/app.py"], kind="drift")
    dismissed = fl.dismiss_finding(ledger_conn, f.finding_id, "accepted", "alice", "registration is intended")
    res = fl.record_merge(ledger_conn, SCOPE, "c0ffee01", ["packages/af/af/app.py"], node_id="group-2")
    assert res.superseded == [other.finding_id]
    assert [d.finding_id for d in res.decisions] == [other.finding_id]
    after = fl.read_finding(ledger_conn, f.finding_id)
    assert after == dismissed
    assert (after.state, after.superseded_by, after.supersede_rule) == ("dismissed", "alice", "dismissal")


def test_plain_insert_of_a_reported_key_fails_with_ld301_and_a_hint(ledger_conn: psycopg.Connection) -> None:
    ledger_conn.execute("INSERT INTO ledger.finding (scope, finding_key, title) VALUES (%s, 'K-1', 'first')",
                        (SCOPE,))
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.finding (scope, finding_key, title) VALUES (%s, ' K-1', 'again')",
                            (SCOPE,))
    assert info.value.sqlstate == "LD301"
    assert "finding_key" in info.value.diag.message_primary
    assert "report_finding" in (info.value.diag.message_hint or "")
    # a multi-row INSERT holding one duplicate writes nothing
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("INSERT INTO ledger.finding (scope, finding_key, title) "
                            "VALUES (%s, 'K-2', 'new'), (%s, 'K-1', 'dup')", (SCOPE, SCOPE))
    assert info.value.sqlstate == "LD301"
    # COPY too
    with pytest.raises(psycopg.Error) as info:
        with ledger_conn.cursor().copy("COPY ledger.finding (scope, finding_key, title) FROM STDIN") as copy:
            copy.write_row((SCOPE, "K-3", "new"))
            copy.write_row((SCOPE, "K-1", "dup"))
    assert info.value.sqlstate == "LD301"
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)


def test_add_finding_of_a_reported_key_raises_finding_already_reported(ledger_conn: psycopg.Connection) -> None:
    fl.add_finding(ledger_conn, SCOPE, "first", finding_key="K-1")
    with pytest.raises(fl.FindingAlreadyReported) as info:
        fl.add_finding(ledger_conn, SCOPE, "again", finding_key="K-1")
    assert isinstance(info.value, fl.DuplicateFindingKey)
    assert info.value.sqlstate == "LD301"
    # the same key in another scope is another finding
    assert fl.add_finding(ledger_conn, "spec-08", "other scope", finding_key="K-1").scope == "spec-08"


def test_concurrent_first_reports_of_one_key_give_new_and_duplicate(ledger_conn: psycopg.Connection,
                                                                      ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn) as a, psycopg.connect(ledger_dsn, autocommit=True) as b:
        first = fl.report_finding(a, SCOPE, "K-9", "raced")  # uncommitted
        a_pid = a.info.backend_pid
        results: list[fl.ReportResult] = []
        thread = threading.Thread(target=lambda: results.append(fl.report_finding(b, SCOPE, "K-9", "raced")))
        thread.start()
        # wait until b is blocked behind a's uncommitted row (ON CONFLICT waits for a)
        while not ledger_conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock')",
            (b.info.backend_pid,),
        ).fetchone()[0]:  # type: ignore[index]
            assert thread.is_alive()
            ledger_conn.execute("SELECT pg_sleep(0.01)")
        assert a_pid != b.info.backend_pid
        a.commit()
        thread.join()
    assert first.outcome == "new"
    assert [(r.finding_id, r.outcome, r.report_count) for r in results] == [(first.finding_id, "duplicate", 2)]


def test_report_finding_requires_key_and_title(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.ValueRequired) as info:
        fl.report_finding(ledger_conn, SCOPE, "  ", "title")
    assert "finding_key" in str(info.value)
    with pytest.raises(fl.ValueRequired):
        fl.report_finding(ledger_conn, SCOPE, "K-1", "")
    with pytest.raises(fl.PathRejected):
        fl.report_finding(ledger_conn, SCOPE, "K-1", "t", paths=["../up.py"])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


def test_findings_are_never_deleted(ledger_conn: psycopg.Connection) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "keep me")
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("DELETE FROM ledger.finding WHERE id = %s", (f.id,))
    assert info.value.sqlstate == "LD304"
    assert "dismiss_finding" in (info.value.diag.message_hint or "")
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)


def test_state_is_derived_from_rows_written_directly(ledger_conn: psycopg.Connection) -> None:
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, superseded_at, superseded_by) VALUES (%s, 'old', now(), 'n1'),"
        " (%s, 'live', NULL, NULL)", (SCOPE, SCOPE))
    rows = ledger_conn.execute(
        "SELECT title, state, report_count, reopen_count FROM ledger.finding_lifecycle ORDER BY id").fetchall()
    assert rows == [("old", "superseded", 1, 0), ("live", "active", 1, 0)]


@pytest.mark.parametrize(
    ("sql", "sqlstate"),
    [
        ("UPDATE ledger.finding SET dismissed_at = now(), superseded_at = now()", "LD305"),
        ("UPDATE ledger.finding SET dismissed_at = now(), resolution = 'accepted'", "LD305"),
        ("UPDATE ledger.finding SET resolution = 'accepted'", "LD305"),
        ("UPDATE ledger.finding SET dismissed_at = now(), superseded_at = now(), resolution = 'fixed'", "LD003"),
        ("INSERT INTO ledger.finding (scope, title, dismissed_at, resolution) "
         "VALUES ('spec-07', 't', now(), 'accepted')", "LD305"),
    ],
)
def test_direct_writes_cannot_make_the_lifecycle_inconsistent(
    ledger_conn: psycopg.Connection, sql: str, sqlstate: str
) -> None:
    fl.add_finding(ledger_conn, SCOPE, "a finding")
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute(sql)
    assert info.value.sqlstate == sqlstate
    assert ledger_conn.execute("SELECT state FROM ledger.finding_lifecycle").fetchall() == [("active",)]


def test_reopening_a_dismissed_finding_by_update_is_refused(ledger_conn: psycopg.Connection) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "a finding")
    fl.dismiss_finding(ledger_conn, f.id, "false_positive", "alice", "not a problem")
    with pytest.raises(fl.LifecycleInconsistent):
        with fl.errors.translate():
            ledger_conn.execute("UPDATE ledger.finding SET superseded_at = NULL WHERE id = %s", (f.id,))
    assert fl.read_finding(ledger_conn, f.id).state == "dismissed"
