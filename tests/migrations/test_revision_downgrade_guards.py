"""A downgrade that drops a column or a table refuses while it holds data.

Each revision whose downgrade.sql drops a column or a table includes its
``downgrade_guard.sql`` first: LD501 naming the revision and each column or
table with the count it would lose, unless ``ledger.allow_data_loss`` is
``'true'``. Online, migrations/env.py runs the guards of every revision to
undo before the first is undone, so a refused downgrade leaves the database
at the revision it was at, every value in place.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy.exc import DBAPIError
from support.migrations import ini_config, revisions, version

import findings_ledger as fl
from findings_ledger.testing.schema_dump import client_binary

VERSIONS = Path(__file__).resolve().parents[2] / "migrations" / "versions"
# the revision that adds finding.resolved_when (its guard counts it; a release's fold, once folded) and the one before
(CHECKS,) = [rev for rev in revisions() if (VERSIONS / rev / "downgrade_guard.sql").exists()
             and "'ledger.finding.resolved_when'" in (VERSIONS / rev / "downgrade_guard.sql").read_text()]
BEFORE_CHECKS = revisions()[revisions().index(CHECKS) - 1]
# what the guard names for checked_finding's row: resolved_when, and any other column of the same revision
# that holds a value for it (a fold's observed_at, whose default now() is no value to compare with)
DROPS = re.compile(rf"downgrade of {CHECKS} would drop data \((ledger\.finding\.observed_at: 1, )?"
                   r"ledger\.finding\.resolved_when: 1\)")
CHECK = {"all": [{"file_lacks": {"path": "src/a.py", "pattern": "TODO"}}]}


def checked_finding(dsn: str) -> int:
    with psycopg.connect(dsn, autocommit=True) as conn:
        fl.set_hygiene_mode(conn, "dg", "on", create=True)
        return fl.add_finding(conn, "dg", "a.py has a TODO", paths=["src/a.py"], kind="drift",
                              resolved_when=CHECK).id


def checks(dsn: str) -> list[tuple[int, object]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT id, resolved_when FROM ledger.finding WHERE resolved_when IS NOT NULL"
                            " ORDER BY id").fetchall()


def has_column(dsn: str, table: str, column: str) -> bool:
    with psycopg.connect(dsn) as conn:
        return bool(conn.execute("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'ledger'"
                                 " AND table_name = %s AND column_name = %s", (table, column)).fetchone()[0])  # type: ignore[index]


def test_a_downgrade_below_the_checks_refuses_naming_resolved_when_and_changes_nothing(ledger_dsn: str) -> None:
    finding = checked_finding(ledger_dsn)
    before = checks(ledger_dsn)
    assert before == [(finding, CHECK)]
    with pytest.raises(DBAPIError) as info:
        command.downgrade(ini_config(dsn=ledger_dsn), BEFORE_CHECKS)
    err = info.value.orig
    assert isinstance(err, psycopg.Error) and err.sqlstate == "LD501"
    assert DROPS.fullmatch(err.diag.message_primary), err.diag.message_primary
    assert "-x allow_data_loss=true" in (err.diag.message_hint or "")
    assert version(ledger_dsn) == [revisions()[-1]]  # no later revision was undone either
    assert checks(ledger_dsn) == before


def test_the_python_api_raises_downgrade_refused_and_the_override_proceeds(ledger_dsn: str) -> None:
    checked_finding(ledger_dsn)
    with pytest.raises(fl.DowngradeRefused, match=f"downgrade of {CHECKS} would drop data"):
        fl.downgrade(ledger_dsn, BEFORE_CHECKS)
    assert version(ledger_dsn) == [revisions()[-1]]
    fl.downgrade(ledger_dsn, BEFORE_CHECKS, allow_data_loss=True)
    assert version(ledger_dsn) == [BEFORE_CHECKS]
    assert not has_column(ledger_dsn, "finding", "resolved_when")


def test_alembic_with_allow_data_loss_proceeds(ledger_dsn: str) -> None:
    checked_finding(ledger_dsn)
    command.downgrade(ini_config(dsn=ledger_dsn, allow_data_loss="true"), BEFORE_CHECKS)
    assert version(ledger_dsn) == [BEFORE_CHECKS]
    assert not has_column(ledger_dsn, "finding", "resolved_when")


def test_psql_f_of_the_downgrade_refuses_unless_pgoptions_allow_it(ledger_dsn: str) -> None:
    finding = checked_finding(ledger_dsn)
    fl.downgrade(ledger_dsn, CHECKS)  # the later revisions drop nothing this ledger holds

    def psql(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([client_binary("psql"), "-X", "-q", "-1", "-v", "ON_ERROR_STOP=1", "-d", ledger_dsn,
                               "-f", str(VERSIONS / CHECKS / "downgrade.sql")],
                              capture_output=True, text=True, env={**os.environ, **env})

    refused = psql()
    assert refused.returncode == 3
    assert DROPS.search(refused.stderr), refused.stderr
    assert checks(ledger_dsn) == [(finding, CHECK)]
    allowed = psql(PGOPTIONS="-c ledger.allow_data_loss=true")
    assert allowed.returncode == 0, allowed.stderr
    assert not has_column(ledger_dsn, "finding", "resolved_when")


def test_an_empty_ledger_downgrades_past_every_guard_without_being_told(ledger_dsn: str) -> None:
    fl.downgrade(ledger_dsn, revisions()[0])  # every revision's guard but the baseline's own
    assert version(ledger_dsn) == [revisions()[0]]


def functions(dsn: str) -> list[tuple[str, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid) FROM pg_proc p"
                            " WHERE p.pronamespace = 'ledger'::regnamespace AND p.prokind <> 'a'"
                            " ORDER BY 1").fetchall()


@pytest.mark.parametrize("rev", [CHECKS, "head"])
def test_an_upgrade_sql_run_again_with_psql_defaults_refuses_and_changes_nothing(ledger_dsn: str, rev: str) -> None:
    """``psql -f <rev>/upgrade.sql`` without -1 or ON_ERROR_STOP, on a database
    at head: the file's guard raises LD502 naming both revisions and psql
    stops there, every function body as it was."""
    rev = revisions()[-1] if rev == "head" else rev
    down = revisions()[revisions().index(rev) - 1]
    finding = checked_finding(ledger_dsn)
    before = functions(ledger_dsn)
    proc = subprocess.run([client_binary("psql"), "-X", "-d", ledger_dsn, "-f", str(VERSIONS / rev / "upgrade.sql")],
                          capture_output=True, text=True, cwd="/")
    assert proc.returncode == 3, proc.stderr
    assert (f"ERROR:  upgrade.sql of {rev} expects the database at {down}, but it is at {revisions()[-1]}: "
            "nothing of it was applied") in proc.stderr
    assert proc.stderr.count("ERROR:") == 1
    assert functions(ledger_dsn) == before
    assert version(ledger_dsn) == [revisions()[-1]] and checks(ledger_dsn) == [(finding, CHECK)]
