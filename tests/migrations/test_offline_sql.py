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
    Schema,
    assert_same_schema,
    downgrade,
    ledger_relations,
    offline_sql,
    psql_apply,
    psql_file,
    revisions,
    stamp,
    upgrade,
    version,
)

VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"
ONLY_THE_VERSION_TABLE = [("i", "alembic_version_pkc"), ("r", "alembic_version")]


def test_every_revision_online_offline_and_by_file_agree_up_and_down(
        ledger_database_factory: Callable[..., str]) -> None:
    """Three databases walk the history together, one revision at a time, up
    to head and back down to base:

    * online: ``alembic upgrade`` / ``downgrade`` (the reference);
    * offline: the ``--sql`` script of that one step applied with psql;
    * by file: what a DBA runs without alembic, ``psql -f
      migrations/versions/<rev>/upgrade.sql`` (and downgrade.sql), each
      followed (preceded, on the way down) by the revision's
      ``concurrently.sql`` (``downgrade_concurrently.sql``) when it has one,
      and by recording the version the file leaves (``alembic stamp``, here
      its row written directly): each upgrade.sql after the baseline first
      checks that the database is at the revision before it.

    After every step the three have the same schema (alembic's version table
    aside: the by-file database has the table, its row is not compared). On
    the way down, online's schema at each revision is exactly the one it had
    at that revision on the way up: a downgrade N -> N-1 gives back the
    schema of a database upgraded to N-1 only, not merely the same as the
    offline downgrade, which could go wrong alike. At base only the version
    table is left.

    The released revisions (pinned in migrations/released.sha256, which
    test_revisions keeps unchanged) are walked the same three ways, but their
    schemas are compared only where they meet the unreleased ones and at
    base: a pinned file cannot change, so comparing after each of its steps
    again on every run adds minutes and no coverage."""
    online = ledger_database_factory(migrated=False)
    offline = ledger_database_factory(migrated=False)
    by_file = ledger_database_factory(migrated=False)
    with psycopg.connect(by_file, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA ledger")
        conn.execute(VERSION_TABLE)
    steps = list(zip([None, *revisions()[:-1]], revisions(), strict=True))
    pins = (VERSIONS.parent / "released.sha256").read_text(encoding="utf-8")
    pinned = {rev for rev in revisions() if f"  versions/{rev}.py\n" in pins}
    boundary = max((rev for rev in revisions() if rev in pinned), default=None)
    upgraded: dict[str, Schema] = {}
    for before, rev in steps:
        upgrade(online, rev)
        psql_apply(offline, offline_sql(f"{before}:{rev}" if before else rev))
        psql_file(by_file, VERSIONS / rev / "upgrade.sql")
        if (VERSIONS / rev / "concurrently.sql").exists():
            psql_file(by_file, VERSIONS / rev / "concurrently.sql")
        stamp(by_file, rev)
        assert version(offline) == [rev]
        if rev in pinned and rev != boundary:
            continue
        upgraded[rev] = expected = Schema(online)
        expected.assert_equals(Schema(offline), f"offline upgrade {before or 'base'} -> {rev}")
        expected.assert_equals(Schema(by_file), f"psql -f {rev}/upgrade.sql")
    for before, rev in reversed(steps):
        downgrade(online, before or "base")
        psql_apply(offline, offline_sql(f"{rev}:{before or 'base'}", downgrade=True))
        if (VERSIONS / rev / "downgrade_concurrently.sql").exists():
            psql_file(by_file, VERSIONS / rev / "downgrade_concurrently.sql")
        psql_file(by_file, VERSIONS / rev / "downgrade.sql")
        stamp(by_file, before)
        assert version(offline) == ([before] if before else [])
        if rev in pinned and before is not None:
            continue
        expected = Schema(online)
        if before:
            upgraded[before].assert_equals(expected, f"{rev} downgraded to {before}")
        expected.assert_equals(Schema(offline), f"offline downgrade {rev} -> {before or 'base'}")
        expected.assert_equals(Schema(by_file), f"psql -f {rev}/downgrade.sql")
    assert ledger_relations(offline) == ledger_relations(online) == ONLY_THE_VERSION_TABLE


def test_offline_upgrade_script_builds_the_online_schema(ledger_database_factory: Callable[..., str]) -> None:
    online = ledger_database_factory()  # migrated online, to head
    offline = ledger_database_factory(migrated=False)
    psql_apply(offline, offline_sql("head"))
    assert version(offline) == version(online) == [revisions()[-1]]
    assert_same_schema(online, offline, "alembic upgrade head --sql | psql")


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
