"""Re-review replaces the previous set (ledger.replace_findings),
and the dismiss / restore transitions."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec-07")

SCOPE = "spec-07"


def item(key: str, title: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"finding_key": key, "title": title or f"finding {key}", **extra}


def states(conn: psycopg.Connection[Any]) -> dict[str, str]:
    return dict(conn.execute(
        "SELECT finding_key, state FROM ledger.finding_lifecycle WHERE finding_key IS NOT NULL").fetchall())


def counts(r: fl.ReviewResult) -> tuple[int, int, int, int, int, int]:
    return (r.added, r.kept, r.reopened, r.still_dismissed, r.superseded, r.would_supersede)


def test_three_successive_review_runs_with_overlapping_sets(ledger_conn: psycopg.Connection) -> None:
    # a finding of another kind in the scope is not part of the re-reviewed set
    drift = fl.report_finding(ledger_conn, SCOPE, "DRIFT-1", "docs mention af night-shift", kind="drift")

    run1 = fl.replace_findings(ledger_conn, SCOPE, "review-1", [item("A", paths=["src/a.py"]), item("B"), item("C")],
                               kind="review")
    assert counts(run1) == (3, 0, 0, 0, 0, 0)

    run2 = fl.replace_findings(ledger_conn, SCOPE, "review-2", [item("B"), item("C"), item("D")], kind="review")
    assert counts(run2) == (1, 2, 0, 0, 1, 0)
    assert states(ledger_conn) == {"A": "superseded", "B": "active", "C": "active", "D": "active",
                                   "DRIFT-1": "active"}

    c_id = ledger_conn.execute("SELECT id FROM ledger.finding WHERE finding_key = 'C'").fetchone()[0]  # type: ignore[index]
    fl.dismiss_finding(ledger_conn, c_id, "false_positive", "alice", "C is by design")

    run3 = fl.replace_findings(ledger_conn, SCOPE, "review-3", [item("A"), item("C"), item("E")], kind="review")
    assert counts(run3) == (1, 0, 1, 1, 2, 0)
    assert states(ledger_conn) == {"A": "active", "B": "superseded", "C": "dismissed", "D": "superseded",
                                   "E": "active", "DRIFT-1": "active"}
    assert fl.read_finding(ledger_conn, drift.finding_id).report_count == 1

    rows = ledger_conn.execute(
        "SELECT f.finding_key, a.action, a.rule, a.evidence, a.actor FROM ledger.supersession a "
        "JOIN ledger.finding f ON f.id = a.finding_id ORDER BY a.id").fetchall()
    assert rows == [
        ("A", "superseded", "rereview", "review-2", "review-2"),
        ("C", "dismissed", "manual", None, "alice"),
        ("A", "reopened", "rereport", "review-3", "review-3"),
        ("B", "superseded", "rereview", "review-3", "review-3"),
        ("D", "superseded", "rereview", "review-3", "review-3"),
    ]
    a = ledger_conn.execute(
        "SELECT report_count, reopen_count, review_run, paths FROM ledger.finding WHERE finding_key = 'A'").fetchone()
    assert a == (2, 1, "review-3", ["src/a.py"])  # a re-report keeps the first report's text and paths
    b = ledger_conn.execute(
        "SELECT superseded_by, supersede_rule, superseded_by_merge_id FROM ledger.finding WHERE finding_key = 'B'"
    ).fetchone()
    assert b == ("review-3", "rereview", None)

    # the same run delivered twice changes nothing but the re-report counters
    again = fl.replace_findings(ledger_conn, SCOPE, "review-3", [item("A"), item("C"), item("E")], kind="review")
    assert counts(again) == (0, 2, 0, 1, 0, 0)


def test_without_kind_the_whole_scope_is_replaced(ledger_conn: psycopg.Connection) -> None:
    fl.report_finding(ledger_conn, SCOPE, "DRIFT-1", "drift", kind="drift")
    fl.add_finding(ledger_conn, SCOPE, "a finding without a key")
    res = fl.replace_findings(ledger_conn, SCOPE, "full-1", [item("X", kind="drift")])
    assert counts(res) == (1, 0, 0, 0, 2, 0)
    assert [f.finding_key for f in fl.active_findings(ledger_conn, SCOPE)] == ["X"]


def test_dry_scope_only_audits_what_a_rereview_would_supersede(ledger_conn: psycopg.Connection) -> None:
    fl.replace_findings(ledger_conn, SCOPE, "r1", [item("A"), item("B")])
    fl.set_hygiene_mode(ledger_conn, SCOPE, "dry")
    res = fl.replace_findings(ledger_conn, SCOPE, "r2", [item("B")])
    assert counts(res) == (0, 1, 0, 0, 0, 1)
    assert states(ledger_conn) == {"A": "active", "B": "active"}
    assert [(a.action, a.rule) for a in fl.read_audit(ledger_conn, SCOPE)] == [("would_supersede", "rereview")]
    fl.set_hygiene_mode(ledger_conn, SCOPE, "off")
    assert counts(fl.replace_findings(ledger_conn, SCOPE, "r3", [])) == (0, 0, 0, 0, 0, 0)
    assert states(ledger_conn) == {"A": "active", "B": "active"}


@pytest.mark.parametrize(
    ("findings", "error", "field"),
    [
        ([item("A"), item("B"), item("A")], fl.DuplicateInReview, "findings[3].finding_key"),
        ([item("A"), {"finding_key": "B"}], fl.ValueRequired, "findings[2].title"),
        ([item("A"), {"title": "no key"}], fl.ValueRequired, "findings[2].finding_key"),
        ([item("A"), "just text"], fl.ValueInvalid, "findings[2]"),
        ([item("A", paths="src/a.py")], fl.ValueInvalid, "findings[1].paths"),
        ([item("A", kind="drift")], fl.ValueInvalid, "findings[1].kind"),
    ],
)
def test_a_bad_review_set_is_rejected_whole(
    ledger_conn: psycopg.Connection, findings: list[Any], error: type[Exception], field: str
) -> None:
    fl.replace_findings(ledger_conn, SCOPE, "r1", [item("OLD")], kind="review")
    with pytest.raises(error) as info:
        fl.replace_findings(ledger_conn, SCOPE, "r2", findings, kind="review")
    assert field in str(info.value)
    assert states(ledger_conn) == {"OLD": "active"}
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)


def test_findings_must_be_a_json_array(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute("SELECT * FROM ledger.replace_findings('s', NULL, 'r1', '{\"a\": 1}')")
    assert info.value.sqlstate == "LD003"


def test_restore_after_a_wrong_supersession(ledger_conn: psycopg.Connection) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "docs still mention af night-shift", paths=["docs/"], kind="drift")
    merge = fl.record_merge(ledger_conn, SCOPE, "d0c5d0c5", ["docs/index.md"], node_id="group-4")
    assert merge.superseded == [f.id]

    restored = fl.restore_finding(ledger_conn, f.id, "bob", "group 4 only fixed a typo in docs/index.md")
    assert (restored.state, restored.reopen_count, restored.superseded_by, restored.supersede_rule) == (
        "active", 1, None, None)
    assert [a.id for a in fl.active_findings(ledger_conn, SCOPE)] == [f.id]
    audit = fl.read_audit(ledger_conn, SCOPE, finding_id=f.id)
    assert [(a.action, a.rule, a.actor) for a in audit] == [("superseded", "path", None),
                                                           ("restored", "manual", "bob")]
    assert audit[1].reason == "group 4 only fixed a typo in docs/index.md"
    assert audit[1].detail is not None
    assert (audit[1].detail["superseded_by"], audit[1].detail["superseded_by_merge_id"]) == ("group-4",
                                                                                             merge.merge_id)
    # the merge's own decisions are unchanged on redelivery
    assert fl.record_merge(ledger_conn, SCOPE, "d0c5d0c5", ["docs/index.md"]).decisions == merge.decisions

    with pytest.raises(fl.InvalidTransition):
        fl.restore_finding(ledger_conn, f.id, "bob", "again")


def test_dismiss_then_restore(ledger_conn: psycopg.Connection) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "pyproject misses workspace entries", kind="drift")
    d = fl.dismiss_finding(ledger_conn, f.id, "Wont-Fix", "alice", "the workspace is configured elsewhere")
    assert (d.state, d.resolution, d.dismissed_by, d.dismissal_reason) == (
        "dismissed", "wont_fix", "alice", "the workspace is configured elsewhere")
    assert (d.superseded_by, d.supersede_rule) == ("alice", "dismissal")
    assert d.superseded_at is not None and d.dismissed_at == d.superseded_at
    assert fl.active_findings(ledger_conn, SCOPE) == []
    with pytest.raises(fl.InvalidTransition):
        fl.dismiss_finding(ledger_conn, f.id, "accepted", "alice", "changed my mind")

    r = fl.restore_finding(ledger_conn, f.id, "carol", "it is not configured elsewhere")
    assert (r.state, r.resolution, r.dismissed_at, r.dismissed_by, r.dismissal_reason, r.reopen_count) == (
        "active", None, None, None, None, 1)
    assert [(a.action, a.actor) for a in fl.read_audit(ledger_conn, SCOPE, finding_id=f.id)] == [
        ("dismissed", "alice"), ("restored", "carol")]


def test_a_superseded_finding_can_be_dismissed(ledger_conn: psycopg.Connection) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "x", paths=["x.py"], kind="drift")
    merge = fl.record_merge(ledger_conn, SCOPE, "abcd1234", ["x.py"])
    d = fl.dismiss_finding(ledger_conn, f.id, "duplicate", "alice", "same as finding 1")
    assert (d.state, d.superseded_by_merge_id) == ("dismissed", None)
    audit = fl.read_audit(ledger_conn, SCOPE, finding_id=f.id)[-1]
    assert audit.detail == {"from_state": "superseded", "resolution": "duplicate", "superseded_by": "abcd1234",
                            "supersede_rule": "path", "superseded_by_merge_id": merge.merge_id,
                            "superseded_at": audit.detail["superseded_at"]}  # type: ignore[index]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((999, "accepted", "alice", "why"), fl.NotFound),
        ((None, "accepted", "alice", "why"), fl.NotFound),
        (("ID", "fixed", "alice", "why"), fl.ValueInvalid),
        (("ID", "accepted", "alice", "  "), fl.ValueRequired),
        (("ID", "accepted", None, "why"), fl.ValueRequired),
        (("ID", None, "alice", "why"), fl.ValueRequired),
    ],
)
def test_dismiss_rejects_bad_input(ledger_conn: psycopg.Connection, args: tuple[Any, ...],
                                   error: type[Exception]) -> None:
    f = fl.add_finding(ledger_conn, SCOPE, "x")
    call = tuple(f.id if a == "ID" else a for a in args)
    with pytest.raises(error):
        fl.dismiss_finding(ledger_conn, *call)
    assert fl.read_finding(ledger_conn, f.id).state == "active"
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)
