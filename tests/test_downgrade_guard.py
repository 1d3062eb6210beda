"""A downgrade below the baseline refuses while the ledger holds rows
(SQLSTATE LD501, naming the counts) and changes nothing; told
``-x allow_data_loss=true`` it drops the ledger; on an empty ledger it just
works (tests/test_alembic.py)."""

from __future__ import annotations

import psycopg
import pytest
import sqlalchemy as sa
from _migrations import ini_config, ledger_relations, revisions, version
from alembic import command

from findings_ledger.testing.schema_dump import snapshot


def test_downgrade_base_refuses_while_the_ledger_holds_rows(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, kind, title, paths) VALUES ('s', 'drift', 't', '{a.py}')")
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd', '{a.py}')")
    before = snapshot(ledger_dsn)
    with pytest.raises(sa.exc.DatabaseError) as info:
        command.downgrade(ini_config(dsn=ledger_dsn), "base")
    assert info.value.orig.sqlstate == "LD501"
    assert "1 finding" in str(info.value.orig) and "1 merge" in str(info.value.orig)
    assert version(ledger_dsn) == [revisions()[-1]]
    assert snapshot(ledger_dsn) == before
    with psycopg.connect(ledger_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)

    command.downgrade(ini_config(dsn=ledger_dsn, allow_data_loss="true"), "base")
    assert version(ledger_dsn) == []
    assert ledger_relations(ledger_dsn) == [("i", "alembic_version_pkc"), ("r", "alembic_version")]


def test_the_offline_downgrade_carries_the_setting() -> None:
    from _migrations import offline_sql

    assert "SET ledger.allow_data_loss = 'false';" in offline_sql("head:base", downgrade=True)
    assert "SET ledger.allow_data_loss = 'true';" in offline_sql("head:base", downgrade=True, allow_data_loss="true")
