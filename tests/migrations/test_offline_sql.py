"""Offline SQL (``alembic upgrade head --sql``, ``make sql``): the script a DBA
reviews and applies with ``psql -v ON_ERROR_STOP=1`` builds exactly the
schema the online upgrade builds, revision by revision, and the downgrade
scripts take it back. Compared as normalised ``pg_dump --schema-only`` plus
``pg_get_functiondef`` of every function."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import psycopg
from support.migrations import (
    VERSION_TABLE,
    assert_same_schema,
    downgrade,
    ledger_relations,
    offline_sql,
    psql_apply,
    psql_file,
    revisions,
    upgrade,
    version,
)

VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"
ONLY_THE_VERSION_TABLE = [("i", "alembic_version_pkc"), ("r", "alembic_version")]


def test_offline_upgrade_script_builds_the_online_schema(ledger_database_factory: Callable[..., str]) -> None:
    online = ledger_database_factory()  # migrated online, to head
    offline = ledger_database_factory(migrated=False)
    psql_apply(offline, offline_sql("head"))
    assert version(offline) == version(online) == [revisions()[-1]]
    assert_same_schema(online, offline, "alembic upgrade head --sql | psql")


def test_every_revision_offline_equals_online_up_and_down(ledger_database_factory: Callable[..., str]) -> None:
    online = ledger_database_factory(migrated=False)
    offline = ledger_database_factory(migrated=False)
    steps = list(zip([None, *revisions()[:-1]], revisions(), strict=True))
    for before, rev in steps:
        upgrade(online, rev)
        psql_apply(offline, offline_sql(f"{before}:{rev}" if before else rev))
        assert version(offline) == [rev]
        assert_same_schema(online, offline, f"offline upgrade {before or 'base'} -> {rev}")
    for before, rev in reversed(steps):
        downgrade(online, before or "base")
        psql_apply(offline, offline_sql(f"{rev}:{before or 'base'}", downgrade=True))
        assert version(offline) == ([before] if before else [])
        assert_same_schema(online, offline, f"offline downgrade {rev} -> {before or 'base'}")
    assert ledger_relations(offline) == ledger_relations(online) == ONLY_THE_VERSION_TABLE


def test_offline_downgrade_to_base_leaves_only_the_version_table(ledger_dsn: str) -> None:
    psql_apply(ledger_dsn, offline_sql("head:base", downgrade=True))
    assert ledger_relations(ledger_dsn) == ONLY_THE_VERSION_TABLE
    assert version(ledger_dsn) == []


def test_offline_script_runs_each_revision_in_its_own_transaction_with_timeouts() -> None:
    script = offline_sql("head", lock_timeout="2s", statement_timeout="15min")
    assert script.count("SET LOCAL lock_timeout = '2s';") == script.count("SET LOCAL statement_timeout = '15min';") \
        == len(revisions()) + 1  # each revision's transaction, and the one creating the schema
    assert script.count("BEGIN;") == script.count("COMMIT;") >= len(revisions())
    for rev in revisions():
        assert f"VALUES ('{rev}')" in script or f"version_num='{rev}'" in script.replace(" ", "")



def test_each_revisions_files_run_with_psql_f_equal_online(ledger_database_factory: Callable[..., str]) -> None:
    """A DBA runs ``psql -f migrations/versions/<rev>/upgrade.sql`` (and
    downgrade.sql) revision by revision, without alembic, each followed
    (preceded, on the way down) by the revision's ``concurrently.sql``
    (``downgrade_concurrently.sql``) when it has one: the same schema as
    online at every step (alembic's version table aside)."""
    online = ledger_database_factory(migrated=False)
    by_hand = ledger_database_factory(migrated=False)
    with psycopg.connect(by_hand, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA ledger")
        conn.execute(VERSION_TABLE)
    revs = revisions()
    for rev in revs:
        upgrade(online, rev)
        psql_file(by_hand, VERSIONS / rev / "upgrade.sql")
        if (VERSIONS / rev / "concurrently.sql").exists():
            psql_file(by_hand, VERSIONS / rev / "concurrently.sql")
        assert_same_schema(online, by_hand, f"psql -f {rev}/upgrade.sql")
    for before, rev in reversed(list(zip([None, *revs[:-1]], revs, strict=True))):
        downgrade(online, before or "base")
        if (VERSIONS / rev / "downgrade_concurrently.sql").exists():
            psql_file(by_hand, VERSIONS / rev / "downgrade_concurrently.sql")
        psql_file(by_hand, VERSIONS / rev / "downgrade.sql")
        assert_same_schema(online, by_hand, f"psql -f {rev}/downgrade.sql")


def test_each_downgrade_gives_back_exactly_the_revision_before(ledger_database_factory: Callable[..., str]) -> None:
    """Downgrading N -> N-1 gives the schema of a database upgraded to N-1
    only (not merely the same as the offline downgrade, which could go
    wrong alike)."""
    revs = revisions()
    for before, rev in zip(revs[:-1], revs[1:], strict=True):
        stepped = ledger_database_factory(migrated=False)
        upgrade(stepped, rev)
        downgrade(stepped, before)
        fresh = ledger_database_factory(migrated=False)
        upgrade(fresh, before)
        assert_same_schema(fresh, stepped, f"{rev} downgraded to {before}")
