"""A downgrade below the baseline refuses while the ledger holds rows
(the guard is 0001_baseline's downgrade.sql).

``alembic downgrade base`` on a populated ledger fails with LD501, naming how
many rows of each table it would drop, and drops nothing: every row is still
there and the database is still at the revision it was at (migrations/env.py
runs the baseline's guard before any revision is undone). With
``-x allow_data_loss=true`` (alembic), ``allow_data_loss=True``
(:func:`findings_ledger.downgrade`) or ``PGOPTIONS='-c
ledger.allow_data_loss=true'`` (psql) it drops everything.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy.exc import DBAPIError
from support.migrations import below_baseline, ini_config, ledger_relations, revisions, version

import findings_ledger as fl
from findings_ledger.testing.schema_dump import client_binary

BASELINE = Path(__file__).resolve().parents[2] / "migrations" / "versions" / "0001_baseline"
ONLY_THE_VERSION_TABLE = [("i", "alembic_version_pkc"), ("r", "alembic_version")]
TABLES = ("finding", "merge", "supersession", "scope", "issue", "agent_task", "injection")


def populate(dsn: str) -> dict[str, int]:
    """A small ledger: findings, merges, audit rows, an issue, a task, an injection."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for i in range(5):
            # plain SQL: the ledger may be at any revision, the baseline included
            conn.execute("INSERT INTO ledger.finding (scope, title, paths, kind) VALUES ('spec', %s, %s, 'drift')",
                         (f"f{i} is stale", [f"src/f{i}.py"]))
        for i in range(3):
            conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', %s, %s)",
                         (f"abc{i}", [f"src/f{i}.py"]))
        fl.record_injection(conn, "session-1", [4, 5])
        fl.enqueue_task(conn, fl.add_issue(conn, "spec", "an issue").id, "agent-1", "rt-1")
        return {t: conn.execute(f"SELECT count(*) FROM ledger.{t}").fetchone()[0] for t in TABLES}  # type: ignore[index]


def rows(dsn: str) -> dict[str, int]:
    with psycopg.connect(dsn) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM ledger.{t}").fetchone()[0] for t in TABLES}  # type: ignore[index]


@pytest.fixture()
def populated(ledger_dsn: str) -> tuple[str, dict[str, int]]:
    counts = populate(ledger_dsn)
    assert counts == {"finding": 5, "merge": 3, "supersession": 3, "scope": 1, "issue": 1, "agent_task": 1,
                      "injection": 2}
    return ledger_dsn, counts


def test_alembic_downgrade_base_refuses_with_ld501_and_drops_nothing(populated: tuple[str, dict[str, int]]) -> None:
    dsn, counts = populated
    with pytest.raises(DBAPIError) as info:
        command.downgrade(ini_config(dsn=dsn), "base")
    err = info.value.orig
    assert isinstance(err, psycopg.Error) and err.sqlstate == "LD501"
    assert err.diag.message_primary == ("downgrade below the baseline would drop 16 rows of the ledger "
                                        "(1 agent_task, 5 finding, 2 injection, 1 issue, 3 merge, 1 scope, "
                                        "3 supersession)")
    assert "-x allow_data_loss=true" in (err.diag.message_hint or "")
    assert rows(dsn) == counts
    assert version(dsn) == [revisions()[-1]]
    fl.migrate(dsn)  # and back up: nothing was lost
    assert version(dsn) == [revisions()[-1]] and rows(dsn) == counts


def test_the_python_api_raises_downgrade_refused(populated: tuple[str, dict[str, int]]) -> None:
    dsn, counts = populated
    with pytest.raises(fl.DowngradeRefused) as info:
        fl.downgrade(dsn, "base")
    assert info.value.sqlstate == "LD501" and "would drop 16 rows" in str(info.value)
    assert isinstance(info.value.__cause__, psycopg.Error)
    assert rows(dsn) == counts
    with below_baseline(dsn):
        fl.downgrade(dsn, "base", allow_data_loss=True)
    assert version(dsn) == [] and ledger_relations(dsn) == ONLY_THE_VERSION_TABLE


def test_alembic_with_allow_data_loss_drops_everything(populated: tuple[str, dict[str, int]]) -> None:
    dsn, _ = populated
    with below_baseline(dsn):
        command.downgrade(ini_config(dsn=dsn, allow_data_loss="true"), "base")
    assert version(dsn) == [] and ledger_relations(dsn) == ONLY_THE_VERSION_TABLE


def test_an_empty_ledger_downgrades_without_being_told(ledger_dsn: str) -> None:
    with below_baseline(ledger_dsn):
        fl.downgrade(ledger_dsn, "base")
    assert version(ledger_dsn) == [] and ledger_relations(ledger_dsn) == ONLY_THE_VERSION_TABLE


def test_psql_f_of_the_baseline_downgrade_refuses_unless_pgoptions_allow_it(
    ledger_database_factory: Callable[..., str]
) -> None:
    dsn = ledger_database_factory(migrated=False)
    fl.migrate(dsn, "0001_baseline")
    counts = populate(dsn)

    def psql(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn,
                               "-f", str(BASELINE / "downgrade.sql")],
                              capture_output=True, text=True, env={**os.environ, **env})

    refused = psql()
    assert refused.returncode == 3
    assert "ERROR:  downgrade below the baseline would drop 16 rows of the ledger" in refused.stderr
    assert rows(dsn) == counts
    with below_baseline(dsn):
        allowed = psql(PGOPTIONS="-c ledger.allow_data_loss=true")
    assert allowed.returncode == 0, allowed.stderr
    assert ("r", "finding") not in ledger_relations(dsn)


def test_allow_data_loss_must_say_true_or_false(ledger_dsn: str) -> None:
    with pytest.raises(SystemExit, match="invalid allow_data_loss 'yes'"):
        command.downgrade(ini_config(dsn=ledger_dsn, allow_data_loss="yes"), "base")
    assert version(ledger_dsn) == [revisions()[-1]]


def test_the_offline_downgrade_carries_the_setting() -> None:
    from support.migrations import offline_sql

    assert "SET LOCAL ledger.allow_data_loss = 'false';" in offline_sql("head:base", downgrade=True)
    assert "SET LOCAL ledger.allow_data_loss = 'true';" in offline_sql("head:base", downgrade=True,
                                                                      allow_data_loss="true")
