"""The locks each revision takes on tables that already exist are the ones
docs/dba.md ("What each revision does") promises a DBA.

For every revision after the first, the transactional part of its offline
script (``alembic upgrade PREV:REV --sql``, up to the first ``COMMIT;``: a
revision that builds an index CONCURRENTLY builds it after that) runs in
an open transaction on a database at the previous revision; the strongest
lock held on each pre-existing ledger table is read from ``pg_locks``
before rolling back. A new revision fails here until its row in
``EXPECTED`` (and in docs/dba.md) says what it locks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from support.migrations import offline_sql, revisions, upgrade

from findings_ledger.testing import databases

# Strongest lock per pre-existing table, by revision (docs/dba.md).
EXPECTED: dict[str, dict[str, str]] = {
    # "0002_name": {"finding": "ShareUpdateExclusiveLock"},  -- one row per revision after the baseline
    # release 0.2.0: 48 revisions folded; the replaced revisions' table steps and
    # backfills, and the functions parsed against the tables they read
    "0002_release_0_2_0": {
        "agent_task": "AccessExclusiveLock",
        "finding": "AccessExclusiveLock",
        "injection": "AccessExclusiveLock",
        "issue": "AccessShareLock",
        "merge": "AccessExclusiveLock",
        "scope": "AccessExclusiveLock",
        "supersession": "AccessShareLock",
    },
    "0003_trigger_definers_check_thei": {},
    "0004_one_anchor_record_per_merge": {"supersession": "ShareUpdateExclusiveLock"},
    "0005_merge_cost_the_anchor_lane": {},
    # DROP TRIGGER _100_prepare (re-created for INSERT only) takes ACCESS EXCLUSIVE on finding
    "0006_merge_cost_anchor_moves_ski": {"finding": "AccessExclusiveLock"},
}

STRENGTH = [
    "AccessShareLock", "RowShareLock", "RowExclusiveLock", "ShareUpdateExclusiveLock",
    "ShareLock", "ShareRowExclusiveLock", "ExclusiveLock", "AccessExclusiveLock",
]

LOCKS = """
SELECT c.relname::text, l.mode
  FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
 WHERE l.pid = pg_backend_pid() AND l.granted AND c.oid = ANY (%s)
"""

TABLES = """
SELECT array_agg(c.oid) FROM pg_class c
 WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind = 'r' AND c.relname <> 'alembic_version'
"""


def transactional_part(script: str) -> str:
    """The block of the offline script's one revision (its version check and
    ``SET LOCAL`` settings included), from the BEGIN before its ``-- Running``
    line to its COMMIT, without the BEGIN."""
    begin = script.rindex("BEGIN;", 0, script.index("-- Running "))
    return script[begin + len("BEGIN;"):script.index("COMMIT;", begin)]


@pytest.fixture(scope="module")
def database_at(ledger_server: dict[str, Any]) -> Iterator[Callable[[int], str]]:
    """A database at revision number ``step`` (0: the first). The module's
    tests ask in revision order, so one database walks up a revision at a
    time (each test rolls back what it ran); asked for an earlier revision
    than it holds, it is replaced by a fresh one."""
    held: dict[str, Any] = {"dsn": None, "step": -1}
    factory = databases.database_factory(ledger_server, lambda: "")
    make = next(factory)

    def at(step: int) -> str:
        if held["dsn"] is None or held["step"] > step:
            held["dsn"], held["step"] = make(migrated=False), -1
        if held["step"] < step:
            upgrade(held["dsn"], revisions()[step])
            held["step"] = step
        return str(held["dsn"])

    yield at
    with contextlib.suppress(StopIteration):
        next(factory)  # drops the databases it made


@pytest.mark.parametrize("step", range(1, len(revisions())), ids=revisions()[1:])
def test_a_revision_takes_the_documented_locks_on_existing_tables(
    database_at: Callable[[int], str], step: int
) -> None:
    before, revision = revisions()[step - 1], revisions()[step]
    dsn = database_at(step - 1)
    body = transactional_part(offline_sql(f"{before}:{revision}"))
    with psycopg.connect(dsn) as conn:
        tables = conn.execute(TABLES).fetchone()[0]
        conn.execute(body)
        strongest: dict[str, str] = {}
        for table, mode in conn.execute(LOCKS, (tables,)).fetchall():
            strongest[table] = max(mode, strongest.get(table, mode), key=STRENGTH.index)
        conn.rollback()
        server_version = conn.info.server_version
    if server_version >= 180000:
        # PostgreSQL 18 takes ACCESS SHARE on every table a GRANT names (13-17 take no lock); it conflicts
        # only with ACCESS EXCLUSIVE. Any other ACCESS SHARE still shows on 13-17, where this test runs too.
        listed = EXPECTED.get(revision) or {}
        strongest = {t: m for t, m in strongest.items() if m != "AccessShareLock" or t in listed}
    assert strongest == EXPECTED.get(revision), (
        f"{revision} locks {strongest} on tables that already exist; say so in EXPECTED here and in "
        "docs/dba.md (What each revision does)"
    )


def test_docs_dba_has_a_row_for_every_revision() -> None:
    """A DBA reads what each revision does, what it locks and what it scans
    in docs/dba.md's table before running it: every revision has its row."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "dba.md").read_text(encoding="utf-8")
    missing = [rev for rev in revisions() if f"| `{rev}` |" not in text]
    assert missing == [], "add a row to docs/dba.md (What each revision does) for each"
