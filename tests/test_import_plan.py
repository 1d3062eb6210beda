"""The plan of the lifecycle trigger's duplicate-key lookup (issue 12).

tg_finding__lifecycle looks up (scope, finding_key) once per inserted row
and keeps one cached generic plan for the session. That plan must be an
index scan of finding_scope_finding_key_key in every state of the table:
a plan that walks finding_scope_slug_key by scope alone (its cost ties with
the unique index's while the table looks empty) or scans the table makes
one INSERT ... SELECT of N findings O(N^2) (docs/performance.md, "Importing
findings"). The plans are read with auto_explain (log_nested_statements);
tests never time anything.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

IMPORT = """
INSERT INTO ledger.finding (scope, finding_key, title, slug, paths)
SELECT 'import', %s || g, 'Finding ' || g, %s || g, ARRAY['src/file' || g || '.py']
  FROM generate_series(1, %s) AS g
"""


def lookup_plans(conn: psycopg.Connection[Any], stmt: str, params: Any) -> list[str]:
    """The plans auto_explain logs for the lookup while ``stmt`` runs."""
    plans: list[str] = []

    def on_notice(diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary or ""
        if "plan:" in text and "f.finding_key = NEW.finding_key" in text:
            plans.append(text)

    conn.add_notice_handler(on_notice)
    try:
        with conn.transaction():
            for setting in ("auto_explain.log_min_duration = 0", "auto_explain.log_nested_statements = on",
                            "client_min_messages = log"):
                conn.execute(f"SET LOCAL {setting}")
            conn.execute(stmt, params)
    finally:
        conn.remove_notice_handler(on_notice)
    return plans


def assert_unique_index(plans: list[str]) -> None:
    assert plans
    for plan in plans:
        assert "Index Scan using finding_scope_finding_key_key" in plan, plan
        assert "finding_scope_slug_key" not in plan and "Seq Scan" not in plan, plan


def test_the_duplicate_key_lookup_probes_the_unique_index_whatever_the_statistics(
        ledger_conn: psycopg.Connection) -> None:
    try:
        ledger_conn.execute("LOAD 'auto_explain'")
    except psycopg.Error as exc:
        # a superuser (the throwaway cluster's postgres, what make test uses) may LOAD it, and
        # every server build here ships it: there its absence fails the test; only a role that
        # may not LOAD a library (an existing server through LEDGER_DSN) skips
        superuser = ledger_conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        assert not (superuser and superuser[0]), f"a superuser cannot LOAD auto_explain: {exc}"
        pytest.skip(f"this role may not LOAD auto_explain: {exc}")
    # a fresh, never analysed table: the generic plan is made at the sixth row
    assert_unique_index(lookup_plans(ledger_conn, IMPORT, ("A-", "a-", 20))[6:])
    # analysed while small: a sequential scan would be the cheapest
    ledger_conn.execute("ANALYZE ledger.finding")
    assert_unique_index(lookup_plans(ledger_conn, IMPORT, ("B-", "b-", 20))[6:])
    # grown, analysed again
    ledger_conn.execute(IMPORT, ("C-", "c-", 2000))
    ledger_conn.execute("ANALYZE ledger.finding")
    assert_unique_index(lookup_plans(ledger_conn, IMPORT, ("D-", "d-", 20))[6:])
    # and the lookup still finds what it must
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute(IMPORT, ("A-", "e-", 1))
    assert info.value.sqlstate == "LD301"
