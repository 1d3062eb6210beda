"""An upgrade to 0004_matching that stops at its concurrent index builds.

0004_matching commits its columns, functions and triggers, then builds two
indexes with CREATE INDEX CONCURRENTLY, then records its version. The
build waits for every transaction in the database older than it; one that
stays open longer than ``lock_timeout`` makes the build fail (55P03) after
the rest of the revision is committed: the version still says
0003_lifecycle, an INVALID index is left behind, and 0004's ADD COLUMNs
cannot run again. tools/recover_0004_matching.sql (docs/dba.md) finishes
such an upgrade; here a real old transaction interrupts the real revision
and the recovery must end in exactly the schema of an uninterrupted
upgrade, with matching working on the old rows."""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest
import sqlalchemy as sa
from _migrations import ROOT, assert_same_schema, ini_config, psql_apply, revisions, upgrade, version
from alembic import command

RECOVER = ROOT / "tools" / "recover_0004_matching.sql"

INDEXES = """
SELECT c.relname::text, i.indisvalid
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE c.relname IN ('finding_active_evidence_idx', 'finding_scope_slug_key') ORDER BY 1
"""


def _indexes(dsn: str) -> list[tuple[str, bool]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(INDEXES).fetchall()


def test_the_recovery_script_finishes_an_upgrade_stopped_at_the_0004_index_builds(
    ledger_database_factory: Callable[..., str],
) -> None:
    assert revisions().index("0004_matching") == revisions().index("0003_lifecycle") + 1
    dsn = ledger_database_factory(migrated=False)
    upgrade(dsn, "0003_lifecycle")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, finding_key, kind, title, paths) VALUES "
                     "('s', 'F-41', 'review', 'Retry storm in the pool', '{src/pool.py}'), "
                     "('s', 'F-42', 'drift', 'Root pyproject.toml is missing', '{pyproject.toml}')")

    # A report that has been running for a while in the same database (it touches no ledger table).
    with psycopg.connect(dsn) as old:
        old.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        old.execute("SELECT count(*) FROM pg_catalog.pg_class").fetchone()
        with pytest.raises(sa.exc.OperationalError) as info:
            command.upgrade(ini_config(dsn=dsn, lock_timeout="300ms"), "0004_matching")
        assert isinstance(info.value.orig, psycopg.Error) and info.value.orig.sqlstate == "55P03"
        old.rollback()

    # Stuck between revisions: 0004's columns are committed, the version is not, an index is INVALID.
    assert version(dsn) == ["0003_lifecycle"]
    with psycopg.connect(dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding WHERE slug IS NULL").fetchone() == (2,)
    assert ("finding_active_evidence_idx", False) in _indexes(dsn)

    out = psql_apply(dsn, RECOVER.read_text())
    assert "version recorded as 0004_matching" in out
    assert version(dsn) == ["0004_matching"]
    assert _indexes(dsn) == [("finding_active_evidence_idx", True), ("finding_scope_slug_key", True)]
    # A second run (or a run on a healthy database) changes nothing.
    assert "nothing changed" in psql_apply(dsn, RECOVER.read_text())

    upgrade(dsn, "head")
    assert_same_schema(ledger_database_factory(), dsn, "the recovered upgrade")
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('s', 'abcd', 'Fixes F-41')")
        assert conn.execute("SELECT finding_key, supersede_rule FROM ledger.finding "
                            "WHERE superseded_at IS NOT NULL").fetchall() == [("F-41", "key")]


def test_the_recovery_script_leaves_a_healthy_database_alone(ledger_dsn: str) -> None:
    before = version(ledger_dsn)
    assert "nothing changed" in psql_apply(ledger_dsn, RECOVER.read_text())
    assert version(ledger_dsn) == before == [revisions()[-1]]
