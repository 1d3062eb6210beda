"""Offline SQL (``alembic upgrade head --sql``, ``make sql``): the script a DBA
reviews and applies with ``psql -v ON_ERROR_STOP=1`` builds exactly the
schema the online upgrade builds, revision by revision, and the downgrade
scripts take it back. Compared as normalised ``pg_dump --schema-only`` plus
``pg_get_functiondef`` of every function."""

from __future__ import annotations

from collections.abc import Callable

from _migrations import (
    assert_same_schema,
    downgrade,
    ledger_relations,
    offline_sql,
    psql_apply,
    revisions,
    upgrade,
    version,
)

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
    head_lines = script.splitlines()
    assert head_lines[0] == "SET lock_timeout = '2s';"
    assert "SET statement_timeout = '15min';" in head_lines[:4]
    assert script.count("BEGIN;") == script.count("COMMIT;") >= len(revisions())
    for rev in revisions():
        assert f"VALUES ('{rev}')" in script or f"version_num='{rev}'" in script.replace(" ", "")
