"""A ``str`` where the API takes a list (paths, keywords, tags, kinds, ids,
merges, a review set) is a ``TypeError`` naming the argument, before any
SQL: iterated, ``"Makefile"`` would be the paths ``['M', 'a', 'k', ...]``
and a merge touching ``Makefile`` would then retire the wrong things."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest

import findings_ledger as fl
from findings_ledger import decisions as matching
from findings_ledger import findings as lifecycle
from findings_ledger import importers

CALLS: list[tuple[str, Callable[[psycopg.Connection[Any]], object], str]] = [
    ("add_finding paths", lambda c: fl.add_finding(c, "s", "Makefile is stale", paths="Makefile"), "paths"),
    ("add_finding bytes", lambda c: fl.add_finding(c, "s", "t", paths=b"Makefile"), "paths"),  # type: ignore[arg-type]
    ("add_finding mapping", lambda c: fl.add_finding(c, "s", "t", paths={"a": 1}), "paths"),  # type: ignore[arg-type]
    ("add_finding number", lambda c: fl.add_finding(c, "s", "t", paths=5), "paths"),  # type: ignore[arg-type]
    ("record_merge paths", lambda c: fl.record_merge(c, "s", "abcd", "Makefile"), "paths"),
    ("record_merge added", lambda c: fl.record_merge(c, "s", "abcd", ["a"], added="a"), "added"),
    ("record_merge deleted", lambda c: fl.record_merge(c, "s", "abcd", ["a"], deleted="a"), "deleted"),
    ("record_merges", lambda c: fl.record_merges(c, "s", "abcd"), "merges"),  # type: ignore[arg-type]
    ("report_finding paths", lambda c: fl.report_finding(c, "s", "k", "t", paths="Makefile"), "paths"),
    ("replace_findings set", lambda c: fl.replace_findings(c, "s", "r", "abc"), "findings"),  # type: ignore[arg-type]
    ("import_finding paths", lambda c: importers.import_finding(c, "s", "t", paths="Makefile"), "paths"),
    ("import_finding keywords", lambda c: importers.import_finding(c, "s", "t", strong_keywords="LD001"),
     "strong_keywords"),
    ("import_finding tags", lambda c: importers.import_finding(c, "s", "t", tags="spec"), "tags"),
    ("record_injection ids", lambda c: lifecycle.record_injection(c, "sess", "12"), "finding_ids"),  # type: ignore[arg-type]
    ("read_prompt_findings kinds", lambda c: fl.read_prompt_findings(c, "s", kinds="drift"), "kinds"),
    ("set_match_policy kinds", lambda c: matching.set_match_policy(c, "s", path_supersede_kinds="drift"),
     "path_supersede_kinds"),
    ("set_match_policy rules", lambda c: matching.set_match_policy(c, "s", enabled_rules="path"), "enabled_rules"),
    ("set_scopes", lambda c: fl.set_scopes(c, "tenant-a"), "scopes"),
]


@pytest.mark.parametrize(("name", "call", "argument"), CALLS, ids=[c[0] for c in CALLS])
def test_a_str_as_a_list_is_a_type_error(ledger_conn: psycopg.Connection[Any], name: str,
                                         call: Callable[[psycopg.Connection[Any]], object], argument: str) -> None:
    with pytest.raises(TypeError, match=rf"^{argument} must be a list, not "):
        call(ledger_conn)
    # nothing was written
    counts = ledger_conn.execute("SELECT (SELECT count(*) FROM ledger.finding), (SELECT count(*) FROM ledger.merge), "
                                 "(SELECT count(*) FROM ledger.scope)").fetchone()
    assert counts == (0, 0, 0)


def test_the_message_shows_the_list_to_write(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(TypeError) as err:
        fl.add_finding(ledger_conn, "s", "Makefile is stale", paths="Makefile")
    assert str(err.value) == "paths must be a list, not str 'Makefile' (one path: ['Makefile'])"


def test_lists_tuples_and_generators_still_work(ledger_conn: psycopg.Connection[Any]) -> None:
    f = fl.add_finding(ledger_conn, "s", "Makefile is stale", paths=["Makefile"])
    g = fl.add_finding(ledger_conn, "s", "two", paths=("a.py", "b.py"), finding_key="g")
    h = fl.add_finding(ledger_conn, "s", "gen", paths=(p for p in ["c.py:3"]), finding_key="h")
    assert (f.paths, g.paths, h.paths, h.anchors) == (["Makefile"], ["a.py", "b.py"], ["c.py"], {"c.py": [3, 3]})
    result = fl.record_merge(ledger_conn, "s", "abcd", ("Makefile",))
    assert [d.finding_id for d in result.decisions if d.action == "candidate"] == [f.id]


#: a scalar argument of the wrong Python type: the stored function has no such signature, and
#: the database's "function does not exist" was reported as a schema behind head
SCALARS: list[tuple[str, Callable[[psycopg.Connection[Any]], object], str]] = [
    ("claim_rechecks lease", lambda c: fl.claim_rechecks(c, "s", "v", lease=60),  # type: ignore[arg-type]
     r"^lease must be a timedelta, not int 60"),
    ("claim_rechecks max", lambda c: fl.claim_rechecks(c, "s", "v", max=2.5),  # type: ignore[arg-type]
     r"^max must be an int, not float 2\.5"),
    ("claim_rechecks max positional", lambda c: fl.claim_rechecks(c, "s", "v", "2"),  # type: ignore[arg-type]
     r"^max must be an int, not str '2'"),
    ("claim_rechecks max bool", lambda c: fl.claim_rechecks(c, "s", "v", True),
     r"^max must be an int, not bool True"),
    ("read_prompt_findings max_age", lambda c: fl.read_prompt_findings(c, "s", max_age=3600),  # type: ignore[arg-type]
     r"^max_age must be a timedelta or None, not int 3600"),
    ("read_prompt_findings max_chars", lambda c: fl.read_prompt_findings(c, "s", max_chars="10"),  # type: ignore[arg-type]
     r"^max_chars must be an int or None, not str '10'"),
    ("record_merge merged_at", lambda c: fl.record_merge(c, "s", "abcd", ["a"], merged_at="2026-01-01"),  # type: ignore[arg-type]
     r"^merged_at must be a datetime or None, not str '2026-01-01'"),
    ("add_finding scope", lambda c: fl.add_finding(c, 7, "t"),  # type: ignore[arg-type]
     r"^scope must be a str, not int 7"),
]


@pytest.mark.parametrize(("name", "call", "message"), SCALARS, ids=[c[0] for c in SCALARS])
def test_a_scalar_of_the_wrong_type_is_a_type_error(ledger_conn: psycopg.Connection[Any], name: str,
                                                    call: Callable[[psycopg.Connection[Any]], object],
                                                    message: str) -> None:
    with pytest.raises(TypeError, match=message) as err:
        call(ledger_conn)
    assert "behind" not in str(err.value)
    ledger_conn.rollback()
    counts = ledger_conn.execute("SELECT (SELECT count(*) FROM ledger.finding), (SELECT count(*) FROM ledger.merge), "
                                 "(SELECT count(*) FROM ledger.scope)").fetchone()
    assert counts == (0, 0, 0)


def test_right_types_still_work(ledger_conn: psycopg.Connection[Any]) -> None:
    from datetime import timedelta
    fl.add_finding(ledger_conn, "s", "t")
    assert fl.claim_rechecks(ledger_conn, "s", "v", 2, lease=timedelta(seconds=60)) == []
    assert fl.read_prompt_findings(ledger_conn, "s", max_age=timedelta(hours=1)) is not None


def test_a_missing_signature_says_behind_only_when_the_schema_is(ledger_conn: psycopg.Connection[Any]) -> None:
    """What the database calls a missing function is a schema behind head only when its
    revision is behind; at head it is an argument of a type the function does not take."""
    from findings_ledger.errors import translate

    with pytest.raises(TypeError) as err, translate(ledger_conn):
        ledger_conn.execute("SELECT * FROM ledger.claim_rechecks('s', 'v', 2, 60)")
    assert "behind" not in str(err.value) and "ledger.claim_rechecks" in str(err.value)
    ledger_conn.rollback()
    revs, heads = fl.api.shipped_revisions()
    older = sorted(revs - heads)[-1]
    ledger_conn.execute("UPDATE ledger.alembic_version SET version_num = %s", (older,))
    ledger_conn.commit()
    try:
        with pytest.raises(fl.SchemaBehind, match="behind this findings-ledger"), translate(ledger_conn):
            ledger_conn.execute("SELECT * FROM ledger.claim_rechecks('s', 'v', 2, 60)")
    finally:
        ledger_conn.rollback()
        ledger_conn.execute("UPDATE ledger.alembic_version SET version_num = %s", (sorted(heads)[0],))
        ledger_conn.commit()
