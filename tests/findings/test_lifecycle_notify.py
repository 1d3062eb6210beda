"""NOTIFY ledger_finding: supersede, reopen, dismiss and restore reach a
second connection when the transaction commits, and never when it rolls back.
(Forged and malformed notifications: tests/access/test_security_notify.py.)"""

from __future__ import annotations

import psycopg
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec-07")

SCOPE = "spec-07"


def test_transitions_are_notified_to_a_second_connection(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as listener:
        fl.listen_findings(listener)
        f = fl.add_finding(ledger_conn, SCOPE, "cli.py missing", paths=["pkg/cli.py"], kind="drift")
        merge = fl.record_merge(ledger_conn, SCOPE, "abc12345", ["pkg/cli.py"], node_id="group-3")
        fl.restore_finding(ledger_conn, f.id, "bob", "not fixed")
        with ledger_conn.transaction(force_rollback=True):  # rolled back: never notified
            fl.dismiss_finding(ledger_conn, f.id, "accepted", "mallory", "rolled back")
        fl.dismiss_finding(ledger_conn, f.id, "accepted", "alice", "fine as is")
        g = fl.report_finding(ledger_conn, SCOPE, "K-1", "k", paths=["pkg/k.py"], kind="drift")
        fl.record_merge(ledger_conn, SCOPE, "def67890", ["pkg/k.py"])
        fl.report_finding(ledger_conn, SCOPE, "K-1", "k", source="review-2")  # reopened

        events = list(fl.finding_events(listener, timeout=10, stop_after=5))

    assert [(e.finding_id, e.action, e.rule, e.actor) for e in events] == [
        (f.id, "superseded", "path", None),
        (f.id, "restored", "manual", "bob"),
        (f.id, "dismissed", "manual", "alice"),
        (g.finding_id, "superseded", "path", None),
        (g.finding_id, "reopened", "rereport", "review-2"),
    ]
    assert [e.audit_id for e in events] == [a.id for a in fl.read_audit(ledger_conn, SCOPE)]
    assert {e.scope for e in events} == {SCOPE}
    assert events[0].merge_id == merge.merge_id


def test_the_payload_is_only_the_audit_id(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """The payload is the audit row's id in decimal, nothing else: a listener
    learns the rest from ledger.read_finding_events with its own rights."""
    with psycopg.connect(ledger_dsn, autocommit=True) as listener:
        listener.execute("LISTEN ledger_finding")
        f = fl.add_finding(ledger_conn, SCOPE, "x")
        fl.dismiss_finding(ledger_conn, f.id, "duplicate", "alice", "same as another")
        notes = list(listener.notifies(timeout=10, stop_after=1))
        assert [n.channel for n in notes] == ["ledger_finding"]
        audit_id = ledger_conn.execute("SELECT max(id) FROM ledger.supersession").fetchone()[0]  # type: ignore[index]
        assert notes[0].payload == str(audit_id)
        rows = listener.execute("SELECT * FROM ledger.read_finding_events(%s)", ([int(notes[0].payload)],)).fetchall()
    assert [r[:7] for r in rows] == [(audit_id, f.id, SCOPE, "dismissed", "manual", None, "alice")]
