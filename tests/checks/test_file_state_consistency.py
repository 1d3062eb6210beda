"""Answers that agree with what a merge's own change kinds decided are
accepted: a request that the merge's added/deleted decided holds true
(exists, text unknown) or null (absent) for its paths, and a writer's text
for a path held true is the same state told in full, so it is no conflict
(LD104) with another finding's request on the same merge and path. Two keys
of one answer naming one path are an error naming both."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findings_ledger as fl
from findings_ledger.errors import FileStateConflict, ValueInvalid

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)


def sql_finding(conn: psycopg.Connection[Any], scope: str, key: str, paths: list[str], check: str) -> int:
    return conn.execute(
        "INSERT INTO ledger.finding (scope, finding_key, title, kind, paths, observed_at, resolved_when) "
        "VALUES (%s, %s, %s, 'drift', %s, '2020-01-01Z', %s::jsonb) RETURNING id",
        (scope, key, f"{key} is stale", paths, check)).fetchone()[0]


def sql_merge(conn: psycopg.Connection[Any], scope: str, sha: str, paths: list[str], added: list[str],
              deleted: list[str]) -> int:
    return conn.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, message, paths, added, deleted) "
        "VALUES (%s, %s, 'step', %s, %s, %s) RETURNING id", (scope, sha, paths, added, deleted)).fetchone()[0]


def answer(conn: psycopg.Connection[Any], merge_id: int, states: str) -> dict[int, tuple[str, str | None]]:
    rows = conn.execute("SELECT finding_id, outcome, part FROM ledger.record_file_states(%s, %s::jsonb)",
                        (merge_id, states)).fetchall()
    return {r[0]: (r[1], r[2]) for r in rows}


def test_a_text_for_a_file_the_merge_decided_present_is_no_conflict(ledger_conn: psycopg.Connection) -> None:
    """file_lacks and path_absent on one modified file: path_absent is
    decided by the merge (a.py exists: failed), file_lacks needs the text;
    the text for a.py answers it."""
    lacks = sql_finding(ledger_conn, "s", "L", ["a.py"], '{"file_lacks": {"path": "a.py", "pattern": "x"}}')
    absent = sql_finding(ledger_conn, "s", "A", ["a.py"], '{"path_absent": "a.py"}')
    m = sql_merge(ledger_conn, "s", "a" * 40, ["a.py"], [], [])
    assert ledger_conn.execute("SELECT finding_id, paths FROM ledger.pending_file_state").fetchall() == [
        (lacks, ["a.py"])]
    assert answer(ledger_conn, m, '{"a.py": "y = 1\\n"}') == {lacks: ("held", "file_lacks"),
                                                               absent: ("failed", "path_absent")}
    # again: idempotent, and null for a.py is still a conflict (the merge says it exists)
    assert answer(ledger_conn, m, '{"a.py": "y = 1\\n"}')[lacks] == ("held", "file_lacks")
    with pytest.raises(psycopg.Error, match="conflicting states\\['a.py'\\]") as e:
        answer(ledger_conn, m, '{"a.py": null}')
    assert e.value.sqlstate == "LD104"


def test_a_directory_the_merge_decided_present_takes_a_writers_text(ledger_conn: psycopg.Connection) -> None:
    """path_exists pkg/ is decided by the merge adding pkg/cli.py; a check on
    pkg/cli.py beside it (alone, or with pkg/ in the same check) is answered
    with every path asked for, pkg/ as git ls-tree names a file under it."""
    exists = sql_finding(ledger_conn, "s", "E", ["pkg/"], '{"path_exists": "pkg/"}')
    cli = sql_finding(ledger_conn, "s", "C", ["pkg/cli.py"],
                      '{"file_contains": {"path": "pkg/cli.py", "pattern": "def main"}}')
    both = sql_finding(ledger_conn, "s", "B", ["pkg/", "pkg/cli.py"],
                       '{"all": [{"path_exists": "pkg/"}, '
                       '{"file_contains": {"path": "pkg/cli.py", "pattern": "def main"}}]}')
    m = sql_merge(ledger_conn, "s", "b" * 40, ["pkg/", "pkg/cli.py"], ["pkg/", "pkg/cli.py"], [])
    assert ledger_conn.execute("SELECT finding_id FROM ledger.pending_file_state ORDER BY 1").fetchall() == [
        (cli,), (both,)]
    out = answer(ledger_conn, m, '{"pkg/": "pkg/cli.py", "pkg/cli.py": "def main():\\n    pass\\n"}')
    assert out == {exists: ("held", "path_exists"), cli: ("held", "file_contains"), both: ("held", "all")}
    assert fl.active_findings(ledger_conn, "s") == []


def test_two_keys_naming_one_path_are_an_error_naming_both(ledger_conn: psycopg.Connection) -> None:
    f = sql_finding(ledger_conn, "s", "L", ["a.py"], '{"file_lacks": {"path": "a.py", "pattern": "x"}}')
    m = sql_merge(ledger_conn, "s", "c" * 40, ["a.py"], [], [])
    with pytest.raises(ValueInvalid, match="states\\['./a.py'\\] and states\\['a.py'\\]: both name the path 'a.py'"):
        fl.record_file_states(ledger_conn, m, {"./a.py": "x = 1\n", "a.py": "y = 1\n"})
    assert [p.finding_id for p in fl.pending_file_states(ledger_conn, "s")] == [f]


# --- any two checks on shared paths, answered in any order ---------------------------------

FILES = ("a.py", "pkg/cli.py")
TEXTS = ("x = 1\n", "def main():\n    pass\n")
atom = st.one_of(
    st.builds(lambda p: {"path_exists": p}, st.sampled_from(["a.py", "pkg/", "pkg/cli.py"])),
    st.builds(lambda p: {"path_absent": p}, st.sampled_from(["a.py", "pkg/", "pkg/cli.py"])),
    st.builds(lambda p, pat: {"file_contains": {"path": p, "pattern": pat}},
              st.sampled_from(FILES), st.sampled_from(["x", "def main"])),
    st.builds(lambda p, pat: {"file_lacks": {"path": p, "pattern": pat}},
              st.sampled_from(FILES), st.sampled_from(["x", "def main"])),
)
check = st.one_of(atom, st.builds(lambda k, parts: {k: parts}, st.sampled_from(["all", "any"]),
                                  st.lists(atom, min_size=1, max_size=3)))


def paths_of(c: dict[str, Any]) -> list[str]:
    (k, v), = c.items()
    if k in ("all", "any"):
        return sorted({p for part in v for p in paths_of(part)})
    return [v] if isinstance(v, str) else [v["path"]]


def build(conn: psycopg.Connection[Any], scope: str, checks: list[dict[str, Any]],
          kinds: dict[str, str]) -> int:
    for i, c in enumerate(checks):
        fl.add_finding(conn, scope, f"finding {i}", finding_key=f"F{i}", kind="drift", paths=paths_of(c),
                       observed_at=OLD, resolved_when=c)
    added = [p for p in FILES if kinds[p] == "added"]
    deleted = [p for p in FILES if kinds[p] == "deleted"]
    # pkg/ holds only cli.py: it comes and goes with it (as replay-git says)
    if kinds["pkg/cli.py"] == "added":
        added.append("pkg/")
    if kinds["pkg/cli.py"] == "deleted":
        deleted.append("pkg/")
    return fl.record_merge(conn, scope, "d" * 40, paths=sorted({*FILES, *added, *deleted}),
                           added=added, deleted=deleted).merge_id


def state(conn: psycopg.Connection[Any], scope: str) -> list[tuple[Any, ...]]:
    return conn.execute(
        "SELECT f.finding_key, f.supersede_rule, r.outcome, r.part, r.answered_at IS NULL "
        "FROM ledger.finding f JOIN ledger.file_state_request r ON r.finding_id = f.id "
        "WHERE f.scope = %s ORDER BY f.finding_key", (scope,)).fetchall()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(checks=st.lists(check, min_size=2, max_size=2),
       kinds=st.fixed_dictionaries({p: st.sampled_from(["added", "modified", "deleted"]) for p in FILES}),
       texts=st.fixed_dictionaries({p: st.sampled_from(TEXTS) for p in FILES}),
       data=st.data())
def test_consistent_answers_in_any_order_never_conflict_and_decide_as_one_answer(
        ledger_conn: psycopg.Connection, checks: list[dict[str, Any]], kinds: dict[str, str],
        texts: dict[str, str], data: st.DataObject) -> None:
    run = uuid.uuid4().hex[:8]
    tree: dict[str, str | None] = {p: None if kinds[p] == "deleted" else texts[p] for p in FILES}
    tree["pkg/"] = None if tree["pkg/cli.py"] is None else "pkg/cli.py"
    once, split = f"once-{run}", f"split-{run}"
    m_once = build(ledger_conn, once, checks, kinds)
    m_split = build(ledger_conn, split, checks, kinds)
    asked = sorted({p for c in checks for p in paths_of(c)})
    fl.record_file_states(ledger_conn, m_once, {p: tree[p] for p in asked})
    # the paths one at a time, in any order, some twice: every one agrees with the merge
    pieces = data.draw(st.permutations(asked + data.draw(st.lists(st.sampled_from(asked), max_size=3))))
    for p in pieces:
        try:
            fl.record_file_states(ledger_conn, m_split, {p: tree[p]})
        except FileStateConflict as exc:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"{p}={tree[p]!r} refused for {checks} under {kinds}: {exc}")
    assert state(ledger_conn, split) == state(ledger_conn, once)
    assert fl.pending_file_states(ledger_conn, split) == []
