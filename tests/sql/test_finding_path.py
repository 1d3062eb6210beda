"""ledger.finding_path, the path rule's side table, is exactly the paths of
the active findings after every way a finding is written: single-row,
multi-row and COPY inserts, findings without paths or with a repeated path,
supersession by a merge, re-report (reopen), dismissal, restore, a revert,
and a direct update of paths or scope. The matcher reads only this table, so
a row missing or left behind would change decisions."""

from __future__ import annotations

import itertools

import psycopg
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger import findings as lifecycle

_scopes = itertools.count()

DERIVED = """
SELECT DISTINCT f.scope, p.path, f.id FROM ledger.finding f, unnest(f.paths) AS p(path)
 WHERE f.superseded_at IS NULL AND f.scope = ANY (%(scopes)s)
 ORDER BY 1, 2, 3"""
STORED = """
SELECT fp.scope, fp.path, fp.finding_id FROM ledger.finding_path fp
 WHERE fp.scope = ANY (%(scopes)s)
 ORDER BY 1, 2, 3"""


def _check(conn: psycopg.Connection, *scopes: str) -> list[tuple[str, str, int]]:
    derived = conn.execute(DERIVED, {"scopes": list(scopes)}).fetchall()
    assert conn.execute(STORED, {"scopes": list(scopes)}).fetchall() == derived
    return derived


def test_side_table_follows_every_lifecycle_step(ledger_conn: psycopg.Connection) -> None:
    scope = f"fp-{next(_scopes)}"
    other = f"fp-{next(_scopes)}"
    retire_drift_on_touch(ledger_conn, scope, other)  # the path rule as such
    a = fl.add_finding(ledger_conn, scope, "a", paths=["src/a.py", "docs/"], kind="drift", finding_key="ka")
    b = fl.add_finding(ledger_conn, scope, "b", paths=["src/a.py", "src/b.py"], kind="drift", finding_key="kb")
    fl.add_finding(ledger_conn, scope, "no paths", kind="drift")
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, 'm1', 'drift', '{x/1.py,x/1.py}'), "
        "(%s, 'm2', 'drift', '{x/}'), (%s, 'm3', 'drift', '{}')", (scope, scope, scope))
    with ledger_conn.cursor().copy("COPY ledger.finding (scope, title, kind, paths) FROM STDIN") as copy:
        copy.write_row((scope, "c1", "drift", ["y/1.py", "y/2.py"]))
        copy.write_row((scope, "c2", "drift", ["y/"]))
    rows = _check(ledger_conn, scope)
    assert sum(1 for r in rows if r[1] == "x/1.py") == 1
    assert {(r[1], r[2]) for r in rows if r[2] in (a.id, b.id)} == {
        ("src/a.py", a.id), ("docs/", a.id), ("src/a.py", b.id), ("src/b.py", b.id)}

    merge = fl.record_merge(ledger_conn, scope, "c0ffee1", ["src/b.py"])
    assert merge.superseded == [b.id]
    assert {r[2] for r in _check(ledger_conn, scope) if r[1].startswith("src/")} == {a.id}

    lifecycle.report_finding(ledger_conn, scope, "kb", "b", paths=["src/a.py", "src/b.py"], kind="drift")
    assert (scope, "src/b.py", b.id) in _check(ledger_conn, scope)

    lifecycle.dismiss_finding(ledger_conn, a.id, "wont_fix", "tester", "not now")
    assert all(r[2] != a.id for r in _check(ledger_conn, scope))
    lifecycle.restore_finding(ledger_conn, a.id, "tester", "after all")
    assert (scope, "docs/", a.id) in _check(ledger_conn, scope)

    revert = fl.record_merge(ledger_conn, scope, "c0ffee2", ["docs/readme.md"])
    assert a.id in revert.superseded
    _check(ledger_conn, scope)
    fl.record_merge(ledger_conn, scope, "c0ffee3", [], message="Revert \"x\"\n\nThis reverts commit c0ffee2.")
    _check(ledger_conn, scope)

    ledger_conn.execute("UPDATE ledger.finding SET paths = '{lib/z.py}' WHERE id = %s", (b.id,))
    assert {r[1] for r in _check(ledger_conn, scope) if r[2] == b.id} == {"lib/z.py"}
    fl.add_finding(ledger_conn, other, "o", paths=["lib/"], kind="drift")
    ledger_conn.execute("UPDATE ledger.finding SET scope = %s WHERE id = %s", (other, b.id))
    assert {r[0] for r in _check(ledger_conn, scope, other) if r[2] == b.id} == {other}
    ledger_conn.execute("UPDATE ledger.finding SET description = 'd' WHERE id = %s", (b.id,))
    _check(ledger_conn, scope, other)


def test_reconcile_files_findings_written_while_triggers_did_not_fire(ledger_conn: psycopg.Connection) -> None:
    scope = f"fp-{next(_scopes)}"
    retire_drift_on_touch(ledger_conn, scope)  # the path rule as such
    kept = fl.add_finding(ledger_conn, scope, "kept", paths=["a/k.py"], kind="drift")
    with ledger_conn.transaction():
        ledger_conn.execute("SET LOCAL session_replication_role = replica")
        fid = ledger_conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) "
                                  "VALUES (%s, 'replicated', 'drift', '{a/b.py}') RETURNING id", (scope,)).fetchone()[0]
        ledger_conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE id = %s", (kept.id,))
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES (%s, 'beef001', '{a/b.py}')",
                            (scope,))
    assert ledger_conn.execute(STORED, {"scopes": [scope]}).fetchall() == [(scope, "a/k.py", kept.id)]
    [(_, decisions)] = ledger_conn.execute("SELECT * FROM ledger.reconcile(%s)", (scope,)).fetchall()
    assert [(d["finding_id"], d["action"]) for d in decisions] == [(fid, "superseded")]
    assert _check(ledger_conn, scope) == []
