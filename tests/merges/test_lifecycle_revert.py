"""Reverts reopen: a merge whose message says "This reverts commit
<sha>." reopens exactly what that commit superseded and still stands
superseded by it, whether the merge arrives by the API or a plain INSERT."""

from __future__ import annotations

from typing import Any

import psycopg
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec-07", "other-scope")

SCOPE = "spec-07"
C1 = "1111111111111111111111111111111111111111"
C2 = "2222222222222222222222222222222222222222"
C3 = "3333333333333333333333333333333333333333"
REVERT = "4444444444444444444444444444444444444444"


def drift(conn: psycopg.Connection[Any], title: str, path: str) -> int:
    return fl.add_finding(conn, SCOPE, title, paths=[path], kind="drift").id


def test_a_revert_reopens_exactly_what_the_reverted_commit_superseded(ledger_conn: psycopg.Connection) -> None:
    f1 = drift(ledger_conn, "nightshift/ missing", "packages/nightshift/")
    f2 = drift(ledger_conn, "cli.py missing", "packages/nightshift/cli.py")
    f3 = drift(ledger_conn, "app.py registers night-shift", "packages/af/af/app.py")
    f4 = drift(ledger_conn, "nightshift README missing", "packages/nightshift/README.md")
    untouched = drift(ledger_conn, "docs mention night-shift", "docs/")

    c1 = fl.record_merge(ledger_conn, SCOPE, C1, ["packages/nightshift/cli.py", "packages/nightshift/README.md"],
                         node_id="group-3", message="Create the nightshift scaffold")
    assert sorted(c1.superseded) == [f1, f2, f4]
    c2 = fl.record_merge(ledger_conn, SCOPE, C2, ["packages/af/af/app.py"], node_id="group-2")
    assert c2.superseded == [f3]
    fl.dismiss_finding(ledger_conn, f2, "accepted", "alice", "cli.py is generated later")
    fl.restore_finding(ledger_conn, f4, "bob", "README still a stub")
    c3 = fl.record_merge(ledger_conn, SCOPE, C3, ["packages/nightshift/README.md"], node_id="group-5")
    assert c3.superseded == [f4]

    # a service records the revert with a plain INSERT
    ledger_conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths) VALUES (%s, %s, 'group-6', %s, %s)",
        (SCOPE, REVERT, f'Revert "Create the nightshift scaffold"\n\nThis reverts commit {C1.upper()}.\n',
         ["packages/nightshift/cli.py", "packages/nightshift/README.md"]))
    revert_id = ledger_conn.execute("SELECT id FROM ledger.merge WHERE commit_sha = %s", (REVERT,)).fetchone()[0]  # type: ignore[index]

    state = dict(ledger_conn.execute("SELECT id, state FROM ledger.finding_lifecycle").fetchall())
    assert state == {f1: "active", f2: "dismissed", f3: "superseded", f4: "superseded", untouched: "active"}
    decisions = ledger_conn.execute(
        "SELECT finding_id, action, rule, evidence, detail->>'state' FROM ledger.supersession "
        "WHERE merge_id = %s ORDER BY id", (revert_id,)).fetchall()
    assert decisions == [
        (f1, "reopened", "revert", C1, None),
        (f2, "not_reopened", "revert", C1, "dismissed"),
        (f4, "not_reopened", "revert", C1, "superseded"),
    ]
    reopened = fl.read_finding(ledger_conn, f1)
    assert (reopened.reopen_count, reopened.superseded_by_merge_id) == (1, None)
    detail = ledger_conn.execute(
        "SELECT detail FROM ledger.supersession WHERE merge_id = %s AND action = 'reopened'", (revert_id,)
    ).fetchone()[0]  # type: ignore[index]
    assert (detail["reverted_commit"], detail["reverted_merge_id"], detail["superseded_by"]) == (
        C1, c1.merge_id, "group-3")


def test_reverting_a_merge_commit_and_several_commits(ledger_conn: psycopg.Connection) -> None:
    f1 = drift(ledger_conn, "a", "a.py")
    f2 = drift(ledger_conn, "b", "b.py")
    fl.record_merge(ledger_conn, SCOPE, C1, ["a.py"])
    fl.record_merge(ledger_conn, SCOPE, C2, ["b.py"])
    res = fl.record_merge(ledger_conn, SCOPE, REVERT, [], message=(
        f"Revert two\n\nThis reverts commit {C1}, reversing\nchanges made to {C3}.\n\n"
        f"This reverts commit {C2}.\n"))
    assert [(d.finding_id, d.action, d.evidence) for d in res.decisions] == [
        (f1, "reopened", C1), (f2, "reopened", C2)]


def test_a_revert_of_an_unknown_commit_is_audited_and_changes_nothing(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn, "a", "a.py")
    fl.record_merge(ledger_conn, SCOPE, C1, ["a.py"])
    res = fl.record_merge(ledger_conn, "other-scope", REVERT, [], message=f"This reverts commit {C1}.")
    assert [(d.finding_id, d.action, d.evidence) for d in res.decisions] == [(None, "revert_unknown", C1)]
    assert fl.read_finding(ledger_conn, f).state == "superseded"
    # a mere mention (no "This reverts commit <sha>." sentence) does nothing
    res = fl.record_merge(ledger_conn, SCOPE, C3, [], message=f"Follow-up to {C1}; reverts nothing")
    assert res.decisions == []


def test_a_revert_in_a_dry_scope_only_audits(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn, "a", "a.py")
    fl.record_merge(ledger_conn, SCOPE, C1, ["a.py"])
    fl.set_hygiene_mode(ledger_conn, SCOPE, "dry")
    res = fl.record_merge(ledger_conn, SCOPE, REVERT, [], message=f"This reverts commit {C1}.")
    assert [(d.finding_id, d.action) for d in res.decisions] == [(f, "would_reopen")]
    assert fl.read_finding(ledger_conn, f).state == "superseded"
