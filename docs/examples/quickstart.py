"""The README's Python example: run it with LEDGER_DSN set (see the README).

LEDGER_DSN=... .venv/bin/python docs/examples/quickstart.py
"""

import os

import psycopg

import findings_ledger as fl

dsn = os.environ["LEDGER_DSN"]
fl.migrate(dsn)  # alembic upgrade head: nothing to do on a database already at head
with psycopg.connect(dsn, autocommit=True) as conn:
    # this scope retires a drift finding on a touch (the shipped touch mode of kind drift is flag)
    fl.set_match_policy(conn, "spec-08", create=True, touch="retire", touch_kind="drift")
    f = fl.add_finding(conn, "spec-08", "packages/af/af/app.py registers night-shift.",
                       paths=["./packages/af/af/app.py:88"], kind="drift", severity="high", finding_key="F03")
    print(f.finding_key, f.paths)                       # the path as stored
    m = fl.record_merge(conn, "spec-08", "342b7a0b9ad4", ["packages/af/af/nightshift.py", "packages/af/af/app.py"],
                        message="Remove night-shift from the af CLI", node_id="group-2")
    print(m.recorded, [(d.action, d.rule, d.evidence) for d in m.decisions])
    again = fl.record_merge(conn, "spec-08", "342b7a0b", ["packages/af/af/app.py", "packages/af/af/nightshift.py"],
                            message="Remove night-shift from the af CLI")   # the same commit, abbreviated
    print(again.recorded, again.merge_id == m.merge_id)  # a redelivery: the same merge, no second effect
    print(fl.active_findings(conn, "spec-08"))           # the prompt set: now empty
    for a in fl.read_audit(conn, "spec-08"):
        print(a.action, a.rule, a.evidence)
    try:
        fl.add_finding(conn, "spec-08", "bad", paths=["../outside.py"])
    except fl.PathRejected as exc:
        print(exc.sqlstate, exc)
