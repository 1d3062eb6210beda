"""Revision 0002_claims: downgrade removes everything it created, upgrade on a
database that already holds findings works, and the offline script carries
the frozen functions."""

from __future__ import annotations

import contextlib
import io

import psycopg
from alembic import command

from findings_ledger.api import alembic_config

CLAIM_TABLES = ("ledger.issue", "ledger.agent_task", "ledger.poisoned_failure_reason", "ledger.retired_session")


def tables(conn: psycopg.Connection) -> dict[str, bool]:
    return {t: conn.execute("SELECT to_regclass(%s) IS NOT NULL", (t,)).fetchone()[0] for t in CLAIM_TABLES}


def test_downgrade_and_upgrade_again_with_data_present(ledger_dsn: str) -> None:
    cfg = alembic_config(ledger_dsn)
    command.downgrade(cfg, "0001_foundation")
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        assert tables(conn) == dict.fromkeys(CLAIM_TABLES, False)
        leftovers = conn.execute(
            "SELECT proname FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace AND proname IN "
            "('claim_task', 'issue_snapshot', '_snapshot_version', 'tg_agent_task__prepare', '_resumed_task')"
        ).fetchall()
        assert leftovers == []
        conn.execute("SELECT ledger.add_finding('s', 'a finding written before the upgrade')")
    command.upgrade(cfg, "head")
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        assert tables(conn) == dict.fromkeys(CLAIM_TABLES, True)
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM ledger.poisoned_failure_reason").fetchone() == (3,)
        issue = conn.execute("INSERT INTO ledger.issue (scope, title) VALUES ('s', 't') RETURNING id").fetchone()[0]
        conn.execute("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (%s, 'a', 'r')", (issue,))
        assert conn.execute("SELECT snapshot_written FROM ledger.claim_task('r')").fetchone() == (True,)


def test_the_offline_script_carries_the_frozen_claim_functions() -> None:
    out = io.StringIO()
    cfg = alembic_config()
    cfg.output_buffer = out
    with contextlib.redirect_stdout(out):
        command.upgrade(cfg, "0001_foundation:0002_claims", sql=True)
    script = out.getvalue()
    assert "CREATE TABLE ledger.agent_task" in script
    assert "CREATE OR REPLACE FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text DEFAULT NULL)" in script
    assert "RAISE EXCEPTION 'invalid agent_task.status transition for task %: % -> %'" in script
