"""The plan of the lifecycle trigger's duplicate-key lookup.

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

from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from support.plans import load_auto_explain, nested_plans

IMPORT = """
INSERT INTO ledger.finding (scope, finding_key, title, slug, paths)
SELECT 'import', %s || g, 'Finding ' || g, %s || g, ARRAY['src/file' || g || '.py']
  FROM generate_series(1, %s) AS g
"""


def lookup_plans(conn: psycopg.Connection[Any], stmt: str, params: Any) -> list[str]:
    """The plans auto_explain logs for the lookup while ``stmt`` runs."""
    with nested_plans(conn, lambda text: "f.finding_key = NEW.finding_key" in text) as plans:
        conn.execute(stmt, params)
    return plans


def assert_unique_index(plans: list[str]) -> None:
    assert plans
    for plan in plans:
        assert "Index Scan using finding_scope_finding_key_key" in plan, plan
        assert "finding_scope_slug_key" not in plan and "Seq Scan" not in plan, plan


@pytest.fixture
def new_table_conn(ledger_dsn_factory: Callable[[], str]) -> Iterator[psycopg.Connection[Any]]:
    """A connection to a new clone: its indexes hold no dead entries. The claim below is
    about the statistics; with a unique index bloated by earlier deletions (what the
    ``ledger_dsn`` database of a previous test can leave below its truncation threshold) the
    planner has been seen to take finding_scope_slug_key after ANALYZE of 20 rows."""
    with psycopg.connect(ledger_dsn_factory(), autocommit=True) as conn:
        yield conn


def test_the_duplicate_key_lookup_probes_the_unique_index_whatever_the_statistics(
        new_table_conn: psycopg.Connection) -> None:
    ledger_conn = new_table_conn
    load_auto_explain(ledger_conn)
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



REANALYSIS = """
SELECT added FROM ledger.replace_findings(p_scope => 'import', p_kind => 'analysis', p_review_run => %s,
    p_findings => (SELECT jsonb_agg(jsonb_build_object('finding_key', %s || g, 'title', 'Finding ' || g,
                                                       'paths', jsonb_build_array('src/file' || g || '.py:3')))
                     FROM generate_series(1, %s) AS g),
    p_tool => 'ruff')
"""


def test_a_reanalysis_probes_the_unique_index_whatever_the_statistics(
        new_table_conn: psycopg.Connection) -> None:
    """replace_findings runs one lookup of (scope, finding_key) per element, report_finding's, whose generic
    plan, cached while the table looked empty, walked finding_scope_slug_key by scope and made a first import of
    N results into a never analysed table O(N^2); the anchors before are read for the whole set at once."""
    conn = new_table_conn
    load_auto_explain(conn)

    def plans(run: str, prefix: str, n: int) -> list[str]:
        with nested_plans(conn, lambda text: "f.finding_key = v_key" in text or "finding_key = $2" in text) as found:
            conn.execute(REANALYSIS, (run, prefix, n))
        return found

    first = plans("r1", "A-", 200)
    assert len(first) == 200  # one lookup per element
    assert_unique_index(first[6:])
    # analysed while small, then grown: the same
    conn.execute("ANALYZE ledger.finding")
    assert_unique_index(plans("r2", "A-", 200)[6:])
    assert_unique_index(plans("r3", "B-", 200)[6:])


def test_the_absent_set_is_found_by_id_whatever_the_statistics(new_table_conn: psycopg.Connection) -> None:
    """The findings a re-analysis no longer reports are joined by id (hashed, or finding_pkey); a nested loop that
    walked the set of ids once per active finding (chosen while the table looked empty) was O(N^2)."""
    conn = new_table_conn
    load_auto_explain(conn)
    conn.execute(REANALYSIS, ("r1", "A-", 200))
    with nested_plans(conn, lambda text: "EXCEPT" in text and "unnest(v_present)" in text) as found:
        assert conn.execute(REANALYSIS.replace("p_tool", "p_actor => NULL, p_tool"), ("r2", "B-", 1)).fetchone()
    [plan] = found
    assert "Join Filter" not in plan and ("Hash Join" in plan or "finding_pkey" in plan), plan
    assert conn.execute("SELECT count(*) FROM ledger.finding WHERE superseded_at IS NULL").fetchone() == (1,)
