"""Revision 0004_matching on a database that already holds data: the
upgrade adds the columns with their defaults (no rewrite, no backfill) and
matching works on the old rows; the downgrade restores the previous
revision exactly; the
upgrade runs again."""

from __future__ import annotations

from typing import Any

import psycopg
from alembic import command
from alembic.script import ScriptDirectory
from test_sql_sources import SNAPSHOT

from findings_ledger.api import alembic_config

REVISION = "0004_matching"
_script = ScriptDirectory.from_config(alembic_config())
BEFORE = _script.get_revision(REVISION).down_revision
HEAD = _script.get_current_head()

SCHEMA = """
SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
       || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = 'ledger'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'index ' || indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'ledger'::regnamespace
ORDER BY 1
"""


def shape(dsn: str) -> list[Any]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(SNAPSHOT).fetchall() + conn.execute(SCHEMA).fetchall()


def test_upgrade_with_data_downgrade_and_upgrade_again(ledger_empty_dsn: str) -> None:
    empty_dsn = ledger_empty_dsn
    cfg = alembic_config(empty_dsn)
    command.upgrade(cfg, BEFORE)
    at_before = shape(empty_dsn)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, title, finding_key, kind, paths) "
                     "VALUES ('s', 'Old finding', 'F-1', 'drift', '{src/a.py}'), ('s', 'Other', 'F-2', 'review', '{}')")

    command.upgrade(cfg, REVISION)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT slug, strong_keywords, tags FROM ledger.finding ORDER BY id").fetchall() == [
            (None, [], []), (None, [], [])]
        assert conn.execute("SELECT enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch "
                            "FROM ledger.scope").fetchone() == (
            ["path", "key", "slug", "keyword", "title"], ["drift"], False, None)
        assert conn.execute("SELECT count(*) FROM pg_index WHERE NOT indisvalid").fetchone() == (0,)
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('s', 'abcd', 'Closes F-2')")
        assert conn.execute("SELECT finding_key FROM ledger.finding WHERE superseded_at IS NOT NULL").fetchall() == [
            ("F-2",)]

    command.downgrade(cfg, BEFORE)
    assert shape(empty_dsn) == at_before
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (2,)
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abce', '{src/a.py}')")
        assert conn.execute("SELECT finding_key FROM ledger.finding WHERE superseded_at IS NOT NULL "
                            "ORDER BY 1").fetchall() == [("F-1",), ("F-2",)]

    command.upgrade(cfg, "head")
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT version_num FROM ledger.alembic_version").fetchone() == (HEAD,)


def test_offline_sql_builds_the_indexes_outside_the_transaction() -> None:
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        command.upgrade(alembic_config(), f"{BEFORE}:{REVISION}", sql=True)
    sql = buf.getvalue()
    commit = sql.index("COMMIT;", sql.index("CREATE OR REPLACE FUNCTION ledger.tg_merge__supersede"))
    assert commit < sql.index("CREATE INDEX CONCURRENTLY IF NOT EXISTS finding_active_evidence_idx")
    assert "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS finding_scope_slug_key" in sql
