"""sql/ is the source of every function, trigger and view; revisions carry
frozen copies. This test fails when the migrated database and sql/ disagree:
re-applying every sql/ file on a database at head must change nothing, and
every object in the database must have a source file."""

from __future__ import annotations

from pathlib import Path

import psycopg

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"

SNAPSHOT = """
SELECT 'function ' || p.oid::regprocedure::text,
       pg_get_functiondef(p.oid) || coalesce(obj_description(p.oid, 'pg_proc'), '<no comment>')
  FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace
UNION ALL
SELECT 'view ' || c.oid::regclass::text,
       pg_get_viewdef(c.oid) || coalesce(obj_description(c.oid, 'pg_class'), '<no comment>')
  FROM pg_class c WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind = 'v'
UNION ALL
SELECT 'trigger ' || t.tgname || ' on ' || t.tgrelid::regclass::text, pg_get_triggerdef(t.oid)
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relnamespace = 'ledger'::regnamespace AND NOT t.tgisinternal
ORDER BY 1
"""


def sources() -> list[Path]:
    return [*sorted((SQL_DIR / "functions").glob("*.sql")), *sorted((SQL_DIR / "views").glob("*.sql")),
            *sorted((SQL_DIR / "triggers").glob("*.sql"))]


def test_every_sql_file_matches_the_migrated_database(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn) as conn:
        before = dict(conn.execute(SNAPSHOT).fetchall())
        conn.execute("SET check_function_bodies = off")
        for path in sources():
            conn.execute(path.read_text())
        after = dict(conn.execute(SNAPSHOT).fetchall())
        conn.rollback()
    added = sorted(set(after) - set(before))
    assert added == [], f"sql/ defines objects no revision creates: {added}"
    changed = sorted(k for k in before if before[k] != after.get(k))
    assert changed == [], f"sql/ and the migrated database disagree on {changed}: write a new revision"


def test_every_database_object_has_a_source_file(ledger_dsn: str) -> None:
    text = "\n".join(p.read_text() for p in sources())
    with psycopg.connect(ledger_dsn) as conn:
        functions = [r[0] for r in conn.execute(
            "SELECT DISTINCT proname FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace ORDER BY 1")]
        views = [r[0] for r in conn.execute(
            "SELECT relname FROM pg_class WHERE relnamespace = 'ledger'::regnamespace AND relkind = 'v'")]
        triggers = [r[0] for r in conn.execute(
            "SELECT DISTINCT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relnamespace = 'ledger'::regnamespace AND NOT t.tgisinternal")]
    missing = [f for f in functions if f"FUNCTION ledger.{f}(" not in text]
    missing += [v for v in views if f"VIEW ledger.{v} " not in text]
    missing += [t for t in triggers if f"CREATE TRIGGER {t}\n" not in text]
    assert functions and missing == [], f"objects without a file in sql/: {missing}"
