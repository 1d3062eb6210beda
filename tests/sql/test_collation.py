"""ASCII case folding that the database's collation cannot change.

On a database whose default collation is ICU ``tr-TR``, ``lower('I')`` is
the dotless ``ı``: every ``lower()`` over a key, a token, a rule name or a
status would then disagree with the same text in another case. The ledger
folds case with ``lower(x COLLATE "C")`` (ASCII only), so matching and
validation give on that database exactly what they give on a ``C`` one.
The database is created here (PostgreSQL 15 syntax) and migrated with the
real revisions; without ICU the module is skipped, saying why.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

import findings_ledger as fl
from findings_ledger.testing.cluster import catalog_lock

NAME = "ledger_tr_tr"


@pytest.fixture(scope="module")
def turkish(ledger_server: dict[str, Any], ledger_template: str) -> Iterator[str]:
    """DSN of a database with default collation ICU tr-TR, migrated to head."""
    admin = make_conninfo(**ledger_server)
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.info.server_version < 150000:
            pytest.skip("CREATE DATABASE ... LOCALE_PROVIDER icu needs PostgreSQL 15")
        with catalog_lock(admin):
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(NAME)))
        # only a server built without ICU may skip (PostgreSQL's own message for it, word for
        # word); any other failure of CREATE DATABASE fails the test
        try:
            conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu "
                                 "ICU_LOCALE 'tr-TR' LOCALE 'C'").format(sql.Identifier(NAME)))
        except psycopg.errors.FeatureNotSupported as exc:
            if exc.diag.message_primary != "ICU is not supported in this build":
                raise
            # Debian's server (make test's) is built with ICU: there this is a failure
            bindir = conn.execute("SELECT setting FROM pg_config WHERE name = 'BINDIR'").fetchone()
            assert not (bindir and str(bindir[0]).startswith("/usr/lib/postgresql/")), str(exc)
            pytest.skip("this PostgreSQL is built without ICU (ICU is not supported in this build)")
    dsn = make_conninfo(admin, dbname=NAME)
    try:
        fl.migrate(dsn)
        yield dsn
    finally:
        with catalog_lock(admin), psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(NAME)))


@pytest.fixture()
def conn(turkish: str) -> Iterator[psycopg.Connection[Any]]:
    """A connection in a transaction that is rolled back after the test."""
    with psycopg.connect(turkish) as c:
        yield c
        c.rollback()


def test_the_database_really_folds_i_the_turkish_way(conn: psycopg.Connection[Any]) -> None:
    assert conn.execute("SELECT datlocprovider, daticulocale FROM pg_database WHERE datname = current_database()"
                        ).fetchone() == ("i", "tr-TR")
    assert conn.execute("SELECT lower('FIX-I1'), lower('FIX-I1' COLLATE \"C\")").fetchone() == ("fıx-ı1", "fix-i1")


@pytest.mark.parametrize(("key", "message"), [
    ("FIX-I1", "fixes fix-i1"),
    ("fix-i1", "Fixes FIX-I1"),
    ("INIT-7", "Closes init-7"),
])
def test_a_key_named_in_another_case_is_resolved(conn: psycopg.Connection[Any], key: str, message: str) -> None:
    fid = fl.add_finding(conn, "spec", "the init check is flaky", finding_key=key).id
    result = fl.record_merge(conn, "spec", "abcd", [], message=message)
    assert [(d.finding_id, d.action, d.rule) for d in result.decisions] == [(fid, "superseded", "key")]


def test_a_plain_sql_writer_gets_the_same(conn: psycopg.Connection[Any]) -> None:
    fid = conn.execute("INSERT INTO ledger.finding (scope, finding_key, title, severity, kind) "
                       "VALUES ('spec', 'FIX-I1', 'the init check', 'INFO', 'DRIFT') RETURNING id").fetchone()[0]
    conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec', 'abcd', 'fixes fix-i1')")
    row = conn.execute("SELECT severity, kind, superseded_at IS NOT NULL, supersede_rule FROM ledger.finding "
                       "WHERE id = %s", (fid,)).fetchone()
    assert row == ("info", "drift", True, "key")


def test_keywords_and_slugs_in_another_case_are_evidence(conn: psycopg.Connection[Any]) -> None:
    kw = fl.import_finding(conn, "spec", "init fails", strong_keywords=["INIT_DB_FAILED"]).id
    slug = fl.import_finding(conn, "spec", "the index page", slug="2026-01-02-INDEX-PAGE.md").id
    result = fl.record_merge(conn, "spec", "abcd", [], message="Fix init_db_failed; resolves index-page")
    assert sorted((d.finding_id, d.action) for d in result.decisions) == [(kw, "superseded"), (slug, "superseded")]


def test_enumerated_values_fold_ascii_case(conn: psycopg.Connection[Any]) -> None:
    f = fl.add_finding(conn, "spec", "t", kind="REVIEW", severity="INFO")
    assert (f.kind, f.severity) == ("review", "info")
    policy = fl.set_match_policy(conn, "spec", enabled_rules=["PATH", "TITLE", "KEY"], path_supersede_kinds=["DRIFT"])
    assert (policy.enabled_rules, policy.path_supersede_kinds) == (["path", "key", "title"], ["drift"])
    issue = fl.add_issue(conn, "spec", "an issue", status="IN_PROGRESS", priority="MEDIUM")
    assert (issue.status, issue.priority) == ("in_progress", "medium")
    assert fl.dismiss_finding(conn, f.id, "FALSE_POSITIVE", "alice", "not a bug").resolution == "false_positive"
    assert fl.read_prompt_findings(conn, "spec", kinds=["REVIEW"]).included_count == 0  # dismissed, but no error


def test_check_patterns_are_matched_with_ascii_classes(conn: psycopg.Connection[Any]) -> None:
    # the database's own ~ folds and classifies by ICU tr-TR; a check evaluation does as on a C database
    assert conn.execute("SELECT 'ı' ~ '[[:alpha:]]', 'İ' ~ '(?i)i'").fetchone()[0] is True
    for text, pattern in [("ı", "[[:alpha:]]"), ("é", r"\w"), ("İ", "(?i)^i$")]:
        holds = conn.execute("SELECT (ledger._eval_check(jsonb_build_object('file_contains', "
                             "jsonb_build_object('path', 'a.py', 'pattern', %s::text)), "
                             "jsonb_build_object('a.py', %s::text))).holds", (pattern, text)).fetchone()[0]
        assert holds is False, (text, pattern)
