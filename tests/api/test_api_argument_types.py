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
from findings_ledger import importers, lifecycle, matching

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
