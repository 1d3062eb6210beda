"""Exactly-once claims under least privilege: 8 claimers,
every task claimed exactly once.

tests/claims/test_claims_concurrency.py proves it for the claims capability as the
owner (2,000 tasks, 8 connections). Here the same guarantee holds for what a
deployment runs: 8 connections of the ledger_agent role, which may not update
ledger.agent_task at all and claims only through the SECURITY DEFINER
ledger.claim_task; and with per-scope row-level security on, two tenants'
agents share one runtime queue and each task goes to exactly one agent of its
own tenant.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import psycopg
import pytest
from support.security import connect_as

import findings_ledger as fl

WORKERS = 8
ISSUES_PER_TENANT = 20
TASKS_PER_ISSUE = 10
TENANTS = ("tenant-a", "tenant-b")


def claim_all(dsn: str, scopes: list[str | None]) -> tuple[list[list[int]], list[BaseException]]:
    """One ledger_agent connection per entry of ``scopes`` (its ledger.scopes
    setting), all started at once, each claiming from runtime 'rt-load' until
    the queue it may see is empty."""
    claimed: list[list[int]] = [[] for _ in scopes]
    errors: list[BaseException] = []
    start = threading.Barrier(len(scopes))

    def worker(slot: int) -> None:
        try:
            conn = connect_as(dsn, "ledger_agent", scopes=scopes[slot])
            try:
                start.wait()
                while (claim := fl.claim_task(conn, "rt-load")) is not None:
                    claimed[slot].append(claim.task_id)
            finally:
                conn.close()
        except BaseException as exc:  # reported by the caller, so a failing thread fails the test
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(scopes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return claimed, errors


@pytest.fixture
def queue(ledger_conn: psycopg.Connection) -> psycopg.Connection:
    """400 queued tasks on one runtime, interleaved between two tenants' issues."""
    for tenant in TENANTS:
        ledger_conn.execute(
            "INSERT INTO ledger.issue (scope, title, description) "
            "SELECT %s, 'issue ' || n, 'body ' || n FROM generate_series(1, %s) n", (tenant, ISSUES_PER_TENANT))
    ledger_conn.execute(
        "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) "
        "SELECT i.id, 'agent-' || (n %% 2), 'rt-load' FROM ledger.issue i, generate_series(1, %s) n ORDER BY n, i.id",
        (TASKS_PER_ISSUE,))
    return ledger_conn


def dispatched(conn: psycopg.Connection[Any]) -> dict[int, str]:
    """task id -> its issue's scope, for every dispatched task, each with one
    dispatch and its snapshot."""
    rows = conn.execute(
        "SELECT t.id, i.scope, t.status, t.dispatch_count, t.issue_snapshot IS NOT NULL "
        "FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id ORDER BY t.id").fetchall()
    assert {(r[2], r[3], r[4]) for r in rows} == {("dispatched", 1, True)}
    return {r[0]: r[1] for r in rows}


def test_eight_agent_role_claimers_take_every_task_exactly_once(queue: psycopg.Connection, ledger_dsn: str) -> None:
    claimed, errors = claim_all(ledger_dsn, [None] * WORKERS)
    assert errors == []
    all_ids = [task for ids in claimed for task in ids]
    assert [task for task, n in Counter(all_ids).items() if n > 1] == []
    assert sorted(all_ids) == sorted(dispatched(queue))
    assert len(all_ids) == len(TENANTS) * ISSUES_PER_TENANT * TASKS_PER_ISSUE


def test_with_row_level_security_each_task_goes_to_one_agent_of_its_tenant(
        queue: psycopg.Connection, ledger_dsn: str) -> None:
    fl.enable_scope_rls(queue)
    scopes: list[str | None] = [TENANTS[i % 2] for i in range(WORKERS)]
    claimed, errors = claim_all(ledger_dsn, scopes)
    assert errors == []
    all_ids = [task for ids in claimed for task in ids]
    assert [task for task, n in Counter(all_ids).items() if n > 1] == []
    scope_of = dispatched(queue)
    assert sorted(all_ids) == sorted(scope_of)
    assert len(all_ids) == len(TENANTS) * ISSUES_PER_TENANT * TASKS_PER_ISSUE
    for slot, ids in enumerate(claimed):
        assert {scope_of[t] for t in ids} <= {scopes[slot]}, f"agent {slot} ({scopes[slot]}): another tenant's task"
