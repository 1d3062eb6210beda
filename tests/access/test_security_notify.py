"""Notifications a listener can trust.

PostgreSQL lets every role that can connect ``NOTIFY`` any channel, so a
payload on ``ledger_finding`` proves nothing. The ledger's payload is only
the audit id; a listener re-reads it with its own rights
(``ledger.read_finding_events``, row-level security included), and
``finding_events()`` skips and logs what it cannot parse or read instead of
raising. A forged id finds nothing, or a genuine event the reader may see.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import pytest
from support.security import as_role, connect_as
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec", "tenant-a", "tenant-b")

FORGED_MALFORMED = [
    "not json at all",
    "",
    "{}",
    '{"audit_id": "1"}',
    '{"audit_id": true}',
    '{"audit_id": -3}',
    "[1, 2]",
    "-1",
    "1e3",
    "99999999999999999999999",
    '{"finding_id": 1, "scope": "spec", "action": "superseded"}',
    "x" * 7000,
]


@pytest.fixture()
def two_findings(ledger_conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
    fl.add_finding(ledger_conn, "spec", "a is stale", paths=["a.py"], kind="drift")
    fl.add_finding(ledger_conn, "spec", "b is stale", paths=["b.py"], kind="drift")
    fl.add_finding(ledger_conn, "spec", "c is a review note", paths=["c.py"], kind="review")
    return ledger_conn


@pytest.mark.parametrize("sender", ["ledger_agent", "ledger_writer", "ledger_reader"])
def test_forged_and_malformed_notifications_are_skipped_and_logged(
    two_findings: psycopg.Connection[Any], ledger_dsn: str, sender: str, caplog: pytest.LogCaptureFixture
) -> None:
    owner = two_findings
    listener = connect_as(ledger_dsn, "ledger_reader")
    forger = connect_as(ledger_dsn, sender)
    try:
        fl.listen_findings(listener)
        genuine = fl.record_merge(owner, "spec", "aaaa", ["a.py", "c.py"])  # supersedes 1; 3 is only a candidate
        candidate = owner.execute("SELECT id FROM ledger.supersession WHERE action = 'candidate'").fetchone()[0]
        superseded = owner.execute("SELECT id FROM ledger.supersession WHERE action = 'superseded'").fetchone()[0]
        for payload in FORGED_MALFORMED:
            forger.execute("SELECT pg_notify('ledger_finding', %s)", (payload,))
        forger.execute("NOTIFY ledger_finding, '424242'")                       # an id no audit row has
        forger.execute("SELECT pg_notify('ledger_finding', %s)", (str(candidate),))  # not a transition
        # a forged event naming a genuine audit id with made-up content: the audit row is what counts
        forger.execute("SELECT pg_notify('ledger_finding', %s)",
                       (f'{{"audit_id": {superseded}, "action": "dismissed", "actor": "mallory"}}',))
        forger.execute("SELECT pg_notify('other_channel', '1')")
        last = fl.record_merge(owner, "spec", "bbbb", ["b.py"])                # the sentinel
        last_audit = owner.execute("SELECT id FROM ledger.supersession WHERE merge_id = %s",
                                   (last.merge_id,)).fetchone()[0]
        with caplog.at_level(logging.WARNING, logger="findings_ledger.findings"):
            events = list(fl.finding_events(listener, timeout=30, stop_after=3))
    finally:
        listener.close()
        forger.close()
    assert [(e.audit_id, e.finding_id, e.action, e.merge_id, e.actor) for e in events] == [
        (superseded, 1, "superseded", genuine.merge_id, None),
        (superseded, 1, "superseded", genuine.merge_id, None),  # the repeat: handle each audit_id once
        (last_audit, 2, "superseded", last.merge_id, None),
    ]
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == len(FORGED_MALFORMED)
    assert all("not an audit id" in w for w in warned)


def test_an_id_of_another_tenant_reads_as_nothing(ledger_conn: psycopg.Connection[Any], ledger_dsn: str) -> None:
    for scope in ("tenant-a", "tenant-b"):
        fl.add_finding(ledger_conn, scope, "stale", paths=["a.py"], kind="drift")
    fl.enable_scope_rls(ledger_conn)
    listener = connect_as(ledger_dsn, "ledger_reader", scopes="tenant-a")
    try:
        fl.listen_findings(listener)
        ledger_conn.execute("SET ledger.scopes = 'tenant-a, tenant-b'")
        b = fl.record_merge(ledger_conn, "tenant-b", "bbbb", ["a.py"])  # notified: the id is not secret ...
        a = fl.record_merge(ledger_conn, "tenant-a", "aaaa", ["a.py"])
        events = list(fl.finding_events(listener, timeout=30, stop_after=1))
        # ... but tenant-a's listener cannot read what it names
        b_audit = ledger_conn.execute("SELECT id FROM ledger.supersession WHERE merge_id = %s", (b.merge_id,))
        assert listener.execute("SELECT * FROM ledger.read_finding_events(%s)",
                                ([b_audit.fetchone()[0]],)).fetchall() == []
    finally:
        listener.close()
        ledger_conn.execute("RESET ledger.scopes")
    assert [(e.scope, e.merge_id) for e in events] == [("tenant-a", a.merge_id)]


def test_read_finding_events_returns_transitions_only(two_findings: psycopg.Connection[Any]) -> None:
    fl.record_merge(two_findings, "spec", "aaaa", ["a.py", "c.py"])
    ids = [r[0] for r in two_findings.execute("SELECT id FROM ledger.supersession ORDER BY id")]
    with as_role(two_findings, "ledger_reader") as conn:
        rows = conn.execute("SELECT audit_id, action FROM ledger.read_finding_events(%s)",
                            ([*ids, 999, None, -1],)).fetchall()
        assert conn.execute("SELECT count(*) FROM ledger.read_finding_events(NULL)").fetchone() == (0,)
    assert [action for _, action in rows] == ["superseded"]


@pytest.mark.parametrize("role", ["ledger_writer", "ledger_agent"])
def test_roles_that_may_not_read_the_audit_cannot_read_events(two_findings: psycopg.Connection[Any], role: str) -> None:
    with as_role(two_findings, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT * FROM ledger.read_finding_events('{1}')")


def test_a_listener_outside_autocommit_keeps_receiving(two_findings: psycopg.Connection[Any], ledger_dsn: str) -> None:
    """The re-read runs in a transaction of its own, committed, so the
    connection goes back to idle and later notifications still arrive."""
    listener = psycopg.connect(ledger_dsn)
    try:
        listener.execute("LISTEN ledger_finding")
        listener.commit()
        fl.record_merge(two_findings, "spec", "aaaa", ["a.py"])
        first = list(fl.finding_events(listener, timeout=30, stop_after=1))
        assert listener.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        fl.record_merge(two_findings, "spec", "bbbb", ["b.py"])
        second = list(fl.finding_events(listener, timeout=30, stop_after=1))
    finally:
        listener.close()
    assert [e.finding_id for e in first + second] == [1, 2]
