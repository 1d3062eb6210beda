"""The migration path, against the real server: pytest-alembic's built-in
checks (imported explicitly: single head, upgrade, up/down consistency,
model definitions match the DDL), the round trip to base and back, an
idempotent second upgrade, and the session timeouts every run sets.

pytest-alembic's ``alembic_config`` / ``alembic_engine`` fixtures point at
the repository's alembic.ini and a fresh, empty database from the
findings_ledger pytest plugin (``ledger_empty_dsn``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import psycopg
import pytest
import sqlalchemy as sa
from alembic import command
from pytest_alembic import MigrationContext
from pytest_alembic.config import Config as PytestAlembicConfig
from pytest_alembic.tests import (  # noqa: F401  (collected by pytest)
    test_model_definitions_match_ddl,
    test_single_head_revision,
    test_up_down_consistency,
    test_upgrade,
)
from support.migrations import below_baseline, ini_config, ledger_relations, revisions, settings, version

import findings_ledger as fl
from findings_ledger.testing.schema_dump import snapshot


def _engine(dsn: str) -> sa.Engine:
    return sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(dsn), poolclass=sa.pool.NullPool)


@pytest.fixture
def alembic_config() -> PytestAlembicConfig:
    """The repository's alembic.ini. pytest-alembic's up/down consistency
    test stops at the baseline: below it the downgrade runs DROP ROLE, which
    must hold the exclusive catalog lock for as short a time as it can, and
    test_downgrade_to_base_and_back_up takes that step under it."""
    return PytestAlembicConfig(alembic_config=ini_config(), minimum_downgrade_revision=revisions()[0])


@pytest.fixture
def alembic_engine(ledger_empty_dsn: str) -> Iterator[sa.Engine]:
    engine = _engine(ledger_empty_dsn)
    yield engine
    engine.dispose()


def test_downgrade_to_base_and_back_up(alembic_runner: MigrationContext, ledger_empty_dsn: str) -> None:
    alembic_runner.migrate_up_to("heads")
    at_head = snapshot(ledger_empty_dsn)
    with below_baseline(ledger_empty_dsn):
        alembic_runner.migrate_down_to("base")
    assert version(ledger_empty_dsn) == []
    assert ledger_relations(ledger_empty_dsn) == [("i", "alembic_version_pkc"), ("r", "alembic_version")]
    alembic_runner.migrate_up_to("heads")
    assert version(ledger_empty_dsn) == [revisions()[-1]]
    assert snapshot(ledger_empty_dsn) == at_head


def test_upgrading_twice_is_a_no_op(
    alembic_runner: MigrationContext, ledger_empty_dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    alembic_runner.migrate_up_to("heads")
    at_head = snapshot(ledger_empty_dsn)
    with caplog.at_level(logging.INFO, logger="alembic"):
        alembic_runner.migrate_up_to("heads")
        alembic_runner.raw_command("upgrade", "head")
    ran = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Running upgrade")]
    assert ran == []
    assert version(ledger_empty_dsn) == [revisions()[-1]]
    assert snapshot(ledger_empty_dsn) == at_head


@pytest.mark.parametrize(
    ("env", "x", "expected"),
    [
        ({}, {}, {"lock_timeout": "5s", "statement_timeout": "30min"}),
        ({"LEDGER_LOCK_TIMEOUT": "250ms", "LEDGER_STATEMENT_TIMEOUT": "2min"}, {},
         {"lock_timeout": "250ms", "statement_timeout": "2min"}),
        ({"LEDGER_LOCK_TIMEOUT": "250ms"}, {"lock_timeout": "1s", "statement_timeout": "0"},
         {"lock_timeout": "1s", "statement_timeout": "0"}),
    ],
    ids=["defaults", "environment", "x-arguments-win"],
)
def test_every_online_run_sets_the_timeouts_in_each_revision_and_leaves_the_session_as_it_was(
    ledger_empty_dsn: str, monkeypatch: pytest.MonkeyPatch, env: dict, x: dict, expected: dict
) -> None:
    """Each revision's SQL opens with SET LOCAL of the run's timeouts; none
    outlives its transaction (behind a transaction-mode pooler the next
    client of the server connection would inherit it)."""
    for name in ("LEDGER_LOCK_TIMEOUT", "LEDGER_STATEMENT_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    engine = _engine(ledger_empty_dsn)
    statements: list[str] = []
    with engine.connect() as conn:
        before = settings(conn, "lock_timeout", "statement_timeout", "search_path")
        conn.rollback()
        sa.event.listen(conn, "before_cursor_execute", lambda c, cur, stmt, *a: statements.append(stmt))
        cfg = ini_config(**x)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        assert settings(conn, "lock_timeout", "statement_timeout", "search_path") == before
    engine.dispose()
    opening = (f"SET LOCAL lock_timeout = '{expected['lock_timeout']}';\n"
               f"SET LOCAL statement_timeout = '{expected['statement_timeout']}';\n")
    assert sum(stmt.startswith(opening) for stmt in statements) == len(revisions())


def test_a_migration_blocked_by_a_lock_fails_fast_and_changes_nothing(ledger_dsn: str) -> None:
    # The baseline's downgrade drops ledger.finding (ACCESS EXCLUSIVE); a long read blocks it.
    # Each revision is its own transaction: start at the baseline, so the blocked one is the only one.
    command.downgrade(ini_config(dsn=ledger_dsn), revisions()[0])
    before = snapshot(ledger_dsn)
    with psycopg.connect(ledger_dsn) as reader:
        reader.execute("SELECT count(*) FROM ledger.finding")  # a long read holds ACCESS SHARE
        cfg = ini_config(dsn=ledger_dsn, lock_timeout="200ms")
        with pytest.raises(sa.exc.OperationalError) as info:
            command.downgrade(cfg, "base")
        assert isinstance(info.value.orig, psycopg.Error)
        assert info.value.orig.sqlstate == "55P03"  # lock_not_available
        reader.rollback()
    assert version(ledger_dsn) == [revisions()[0]]
    assert snapshot(ledger_dsn) == before


def test_an_invalid_timeout_is_refused_before_connecting() -> None:
    with pytest.raises(SystemExit) as info:
        command.upgrade(ini_config(dsn="host=/nonexistent dbname=x", lock_timeout="five"), "head")
    assert "lock_timeout" in str(info.value)


def test_migrate_raises_psycopgs_error_for_a_malformed_dsn_not_sqlalchemys() -> None:
    """fl.migrate raises what psycopg.connect would, so a caller catches one
    error family (the ledger's own SQLSTATEs come as LedgerError)."""
    with pytest.raises(psycopg.ProgrammingError, match='missing "=" after "this"') as info:
        fl.migrate("this")
    assert not isinstance(info.value, sa.exc.SQLAlchemyError)
