"""Check patterns give the same verdict whatever the database's collation.

PostgreSQL's regular expressions take their classes (``\\w``,
``[[:alpha:]]``) and ``(?i)`` case folding from the collation of the text
they match: on a ``C.UTF-8`` database ``é`` is a letter, on a ``C`` one it
is not. ``ledger._eval_check`` matches under ``COLLATE "C"``, so a check on
a text is decided alike on every database: classes and case folding are
ASCII-only. Here a database whose default collation is libc ``C.UTF-8``
(PostgreSQL 13 syntax; no ICU needed) is made and migrated with the real
revisions, and its verdicts are compared with the test database's (``C``).
The ICU case is in test_collation.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb

import findings_ledger as fl
from findings_ledger.testing.cluster import catalog_lock

NAME = "ledger_c_utf8"

#: (text, pattern, verdict of a file_contains under ASCII-only classes, verdict of ~ on a C.UTF-8 database)
CASES = [
    ("é", "[[:alpha:]]", False, True),
    ("é", r"^\w$", False, True),
    ("É", "(?i)^é$", False, True),
    ("straße", r"^\w+$", False, True),
    ("x = 1", "[[:alpha:]]", True, True),
    ("X", "(?i)x", True, True),
]


@pytest.fixture(scope="module")
def c_utf8(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[str]:
    """DSN of a database with default collation and ctype libc C.UTF-8, migrated to head."""
    admin = make_conninfo(**ledger_server)
    with catalog_lock(admin), psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(NAME)))
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' "
                             "LC_CTYPE 'C.UTF-8'").format(sql.Identifier(NAME)))
    dsn = make_conninfo(admin, dbname=NAME)
    try:
        fl.migrate(dsn)
        yield dsn
    finally:
        with catalog_lock(admin), psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(NAME)))


def _verdicts(conn: psycopg.Connection[Any]) -> list[tuple[Any, Any]]:
    return [conn.execute(
        "SELECT (ledger._eval_check(%s, %s)).holds, %s ~ %s",
        (Jsonb({"file_contains": {"path": "a.py", "pattern": p}}), Jsonb({"a.py": t}), t, p)).fetchone()
        for t, p, _, _ in CASES]


def test_a_check_is_decided_alike_on_a_c_utf8_and_a_c_database(
        c_utf8: str, ledger_conn: psycopg.Connection[Any]) -> None:
    with psycopg.connect(c_utf8) as conn:
        assert conn.execute("SELECT datcollate, datctype FROM pg_database WHERE datname = current_database()"
                            ).fetchone() == ("C.UTF-8", "C.UTF-8")
        # the database itself reads the classes otherwise ...
        utf8 = _verdicts(conn)
        assert [plain for _, plain in utf8] == [c[3] for c in CASES]
        conn.rollback()
    c = _verdicts(ledger_conn)
    assert ledger_conn.execute("SELECT datctype FROM pg_database WHERE datname = current_database()"
                               ).fetchone() == ("C",)
    # ... the check evaluation does not
    assert [holds for holds, _ in utf8] == [holds for holds, _ in c] == [x[2] for x in CASES]


def test_a_merge_is_settled_as_on_a_c_database(c_utf8: str) -> None:
    # [[:alpha:]] is ASCII-only in a check: "straße" is not all letters, so the file lacks the pattern
    # (the database's own ~ would say it has it, and the check would fail)
    with psycopg.connect(c_utf8) as conn:
        assert conn.execute("SELECT 'straße' ~ '^[[:alpha:]]+$'").fetchone() == (True,)
        fid = fl.add_finding(conn, "spec", "a.py still holds a bare word", finding_key="N1",
                             resolved_when={"file_lacks": {"path": "a.py", "pattern": "^[[:alpha:]]+$"}}).id
        merge = fl.record_merge(conn, "spec", "1" * 40, paths=["a.py"], message="rename").merge_id
        out = fl.record_file_states(conn, merge, {"a.py": "straße"})
        assert [(o.finding_id, o.outcome, o.part) for o in out] == [(fid, "held", "file_lacks")]
        conn.rollback()
