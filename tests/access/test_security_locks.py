"""Per-scope serialisation another tenant cannot block.

Re-reviews of a scope (``ledger.replace_findings``) used to serialise on a
transaction-level advisory lock whose key anyone could compute and take.
They now lock the scope's own row (``FOR NO KEY UPDATE``): taking any row
lock needs UPDATE on ``ledger.scope``, which only the admin holds (and, with
row-level security on, only for its own scopes); finding and merge inserts
never wait for it.

Each waiting test proves the wait with pg_stat_activity (the backend waits
for a lock) and bounds a regression with lock_timeout, never with a timer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from support.security import connect_as, wait_until_blocked

import findings_ledger as fl

OLD_KEY = "SELECT pg_advisory_lock(hashtextextended('ledger.replace_findings' || chr(31) || 'tenA', 0))"
SET = [{"finding_key": "K1", "title": "still stale", "paths": ["a.py"]}]


@pytest.fixture()
def tenants(ledger_conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:
    for scope in ("tenA", "tenB"):
        fl.report_finding(ledger_conn, scope, "K1", "stale", paths=["a.py"])
        fl.report_finding(ledger_conn, scope, "K2", "also stale", paths=["b.py"])
    yield ledger_conn


@pytest.mark.parametrize("rls", [False, True])
def test_another_tenant_holding_the_old_advisory_key_does_not_block_a_re_review(
    tenants: psycopg.Connection[Any], ledger_dsn: str, rls: bool
) -> None:
    if rls:
        fl.enable_scope_rls(tenants)
    attacker = connect_as(ledger_dsn, "ledger_reader", scopes="tenB")
    victim = connect_as(ledger_dsn, "ledger_writer", scopes="tenA")
    try:
        attacker.execute(OLD_KEY)
        victim.execute("SET lock_timeout = '5s'")  # a regression fails with 55P03 instead of hanging
        result = fl.replace_findings(victim, "tenA", "run-2", SET)
    finally:
        attacker.close()
        victim.close()
    assert (result.kept, result.superseded) == (1, 1)


@pytest.mark.parametrize("role", ["ledger_reader", "ledger_writer", "ledger_agent"])
@pytest.mark.parametrize("strength", ["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"])
def test_only_a_role_that_may_update_scopes_can_lock_a_scope_row(
    tenants: psycopg.Connection[Any], ledger_dsn: str, role: str, strength: str
) -> None:
    conn = connect_as(ledger_dsn, role)
    try:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"SELECT 1 FROM ledger.scope WHERE scope = 'tenA' FOR {strength}")
    finally:
        conn.close()


def test_an_admin_of_another_tenant_finds_no_row_to_lock(tenants: psycopg.Connection[Any], ledger_dsn: str) -> None:
    fl.enable_scope_rls(tenants)
    admin_b = connect_as(ledger_dsn, "ledger_admin", scopes="tenB")
    try:
        admin_b.execute("BEGIN")
        assert admin_b.execute("SELECT scope FROM ledger.scope WHERE scope = 'tenA' FOR UPDATE").fetchall() == []
        tenants.execute("SET ledger.scopes = 'tenA'")
        tenants.execute("SET lock_timeout = '5s'")
        assert fl.replace_findings(tenants, "tenA", "run-2", SET).superseded == 1
    finally:
        admin_b.close()
        tenants.execute("RESET ledger.scopes")
        tenants.execute("RESET lock_timeout")


def test_re_reviews_of_one_scope_wait_for_each_other(tenants: psycopg.Connection[Any], ledger_dsn: str) -> None:
    """Two re-reviews of tenA serialise on its scope row; a re-review of tenB,
    finding inserts and merges in tenA do not wait for them."""
    first = connect_as(ledger_dsn)
    second = connect_as(ledger_dsn)
    observer = connect_as(ledger_dsn)
    try:
        first.execute("BEGIN")
        fl.replace_findings(first, "tenA", "run-2", SET)
        # not blocked: another scope, and writes into the same scope (their FK takes FOR KEY SHARE)
        for conn in (second,):
            conn.execute("SET lock_timeout = '5s'")
            assert fl.replace_findings(conn, "tenB", "run-2", SET).superseded == 1
            fl.add_finding(conn, "tenA", "new one", paths=["c.py"], kind="drift")
            fl.record_merge(conn, "tenA", "cccc", ["c.py"])
        second.execute("RESET lock_timeout")
        outcome: dict[str, Any] = {}

        def review() -> None:
            more = [*SET, {"finding_key": "K3", "title": "t"}]
            outcome["second"] = fl.replace_findings(second, "tenA", "run-3", more)

        thread = threading.Thread(target=review)
        thread.start()
        wait_until_blocked(observer, second.info.backend_pid)
        first.execute("COMMIT")
        thread.join(60)
        assert not thread.is_alive()
    finally:
        for conn in (first, second, observer):
            conn.close()
    assert (outcome["second"].kept, outcome["second"].added) == (1, 1)
