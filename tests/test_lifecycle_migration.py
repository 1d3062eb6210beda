"""Revision 0003_lifecycle: upgrading a database that already holds findings
derives their state without a backfill, and the downgrade works."""

from __future__ import annotations

import psycopg
from alembic import command
from alembic.script import ScriptDirectory

from findings_ledger.api import alembic_config

REVISION = "0003_lifecycle"


def test_upgrade_with_data_derives_states_and_downgrade_round_trips(ledger_dsn: str) -> None:
    cfg = alembic_config(ledger_dsn)
    down = ScriptDirectory.from_config(cfg).get_revision(REVISION).down_revision
    assert isinstance(down, str)
    command.downgrade(cfg, down)
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('ledger.injection')").fetchone() == (None,)
        conn.execute("INSERT INTO ledger.finding (scope, finding_key, title, paths, kind) VALUES "
                     "('s', 'K-1', 'old active', '{a.py}', 'drift'), ('s', 'K-2', 'old superseded', '{b.py}', 'drift')")
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd1234', '{b.py}')")
    command.upgrade(cfg, REVISION)
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT finding_key, state, report_count, reopen_count, resolution "
                            "FROM ledger.finding_lifecycle ORDER BY id").fetchall()
        assert rows == [("K-1", "active", 1, 0, None), ("K-2", "superseded", 1, 0, None)]
        # an old superseded finding reopens on re-report; a dismissal survives a downgrade as inactive
        assert conn.execute("SELECT outcome FROM ledger.report_finding('s', 'K-2', 'again')").fetchone() == (
            "reopened",)
        conn.execute("SELECT ledger.dismiss_finding(1, 'accepted', 'alice', 'fine')")
    command.downgrade(cfg, down)
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        active = conn.execute("SELECT finding_key FROM ledger.active_finding ORDER BY id").fetchall()
        assert active == [("K-2",)]
        assert conn.execute("SELECT to_regprocedure('ledger.report_finding(text,text,text,text,text[],text,text,"
                            "text,text)')").fetchone() == (None,)
    command.upgrade(cfg, "head")
