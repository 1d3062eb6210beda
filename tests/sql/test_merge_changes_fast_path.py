"""The merge trigger's change-kind checks (tg_merge__prepare_changes) have a
one-query fast path for an INSERT whose added, deleted and hunks are already
normal; every other row goes through the full checks,
ledger._check_merge_changes. For every malformed merge of the hardening
tests (test_bad_input's merge cases, the shapes test_hostile_input and
test_merge_integrity write) and for generated ones (hypothesis: hostile
paths, duplicates, NULL elements, directories, bad hunks), an INSERT of the
merge stores exactly what the full checks return for the same values, or
fails with the same SQLSTATE and message; and a merge whose values are
already normal takes the fast path (the full checks are not called).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb
from support.matching import module_dsn  # noqa: F401

_shas = itertools.count(1)

#: (paths, added, deleted, hunks) of the hardening tests' malformed merges, and edges of each rule
CASES: list[tuple[list[str | None], list[str | None] | None, list[str | None] | None, Any]] = [
    # tests/sql/test_bad_input.py, DECISION_CASES (merge rows over paths ['a.py'])
    (["a.py"], ["b.py"], None, None),
    (["a.py"], None, ["a.py", "c/"], None),
    (["a.py"], ["/abs"], None, None),
    (["a.py"], None, None, "[]"),
    (["a.py"], None, None, '{"a.py": {"x": 1}}'),
    (["a.py"], None, None, '{"a.py": [[1, 2, 3]]}'),
    (["a.py"], None, None, '{"a.py": [[1, 1, 1, 1], [1, -2, 3, 4]]}'),
    (["a.py"], None, None, '{"a.py": [[1.5, 2, 3, 4]]}'),
    (["a.py"], None, None, '{"a.py": [[1, 1, 1, 3000000000]]}'),
    (["a.py"], None, None, '{"a.py": [["1", 1, 1, 1]]}'),
    (["a.py"], None, None, '{"b.py": [[1, 1, 1, 1]]}'),
    (["a.py"], None, None, '{"../a.py": []}'),
    (["a.py"], None, None, '{"./a.py": [], "a.py": []}'),
    # paths the hostile-input tests write (normalised by _100_prepare first)
    (["  src/a.py  ", "src\\win\\b.py"], ["src/a.py"], ["src/win/b.py"], '{"src/win/b.py": [[1, 1, 1, 1]]}'),
    (["./src/a.py", "src//b.py"], ["./src/a.py"], None, '{"src//b.py": [[2, 0, 3, 1]]}'),
    (["src/a.py:12"], ["src/a.py"], None, None),
    (['"src/q a.py"'], ["src/q a.py"], None, '{"src/q a.py": []}'),
    (["../a.py"], None, None, None),
    (["a.py", None], ["a.py"], None, None),
    # added / deleted edges
    (["a.py", "b.py"], ["a.py", "a.py"], None, None),
    (["a.py", "b.py"], ["a.py", None], None, None),
    (["a.py", "b.py"], ["a.py"], ["a.py"], None),
    (["d/a.py", "e.py"], ["d/a.py"], ["d/"], None),
    (["d/a.py", "d/"], ["e.py"], ["d/"], None),
    (["d/a.py", "d/"], None, ["d/"], None),
    (["d/a.py", "d/"], ["d/a.py"], ["d/"], None),
    (["a.py"], [], [], "{}"),
    (["a.py", "b.py"], ["b.py", "a.py"], None, None),
    # deleted directories: one holding a path (as git lists a removed directory's files), one deeper than any
    # path, one not normal, one holding an added path, a duplicate
    (["d/e/a.py", "f.py"], ["f.py"], ["d/e/a.py", "d/", "d/e/"], None),
    (["d/a.py"], None, ["d/a.py/"], None),
    (["d/a.py"], None, ["d/x/"], None),
    (["d/a.py"], None, ["./d/"], None),
    (["d/a.py", "d/b.py"], ["d/b.py"], ["d/a.py", "d/"], None),
    (["d/a.py"], None, ["d/", "d/"], None),
    (["d/a.py", "e/b.py"], ["e/b.py"], ["e/"], None),
    (["a.py"], ["a.py:3"], None, None),
    (["a.py"], ["A.py"], None, None),
    (["é.py"], ["e\u0301.py"], None, None),
    (["a.py"], None, None, '{"a.py": [[2147483647, 2147483647, 0, 0]]}'),
    (["a.py"], None, None, '{"a.py": [[2147483648, 0, 0, 0]]}'),
    (["a.py"], None, None, '{"a.py": [[99999999999, 0, 0, 0]]}'),
    (["a.py"], None, None, '{"a.py": [[1, 1, 1, 1, 1]]}'),
    (["a.py"], None, None, '{"a.py": [[1, 1, 1, null]]}'),
    (["a.py"], None, None, '{"a.py": [[1,1,1,1]], "d/": []}'),
    (["a.py", "d/"], None, None, '{"d/": []}'),
    (["a.py"], None, None, '{"a.py": null}'),
    (["a.py"], None, None, "null"),
    (["a.py"], None, None, '"a.py"'),
    (["a.py"], None, None, '{"a.py": [[0, 0, 0, 0]]}'),
    (["a.py"], None, None, json.dumps({"a.py": [[1, 1, 1, 1]] * 10001})),
    (["a.py", "b.py"], None, None, json.dumps({"a.py": [[1, 1, 1, 1]] * 10000, "b.py": [[1, 1, 1, 1]] * 10000})),
    (["a.py"], None, None, '{"a.py ": []}'),
    (["a.py"], None, None, '{"a.py:4": []}'),
]


def outcome(conn: psycopg.Connection[Any], sql: str, params: tuple[Any, ...]) -> tuple[Any, ...]:
    try:
        with conn.transaction():
            row = conn.execute(sql, params).fetchone()
            assert row is not None
            return ("ok", row[0], row[1], row[2])
    except psycopg.Error as exc:
        return ("error", exc.sqlstate, exc.diag.message_primary)


def full_calls(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions "
                       "WHERE funcname = '_check_merge_changes'").fetchone()
    return int(row[0]) if row else 0


def both(conn: psycopg.Connection[Any], paths: list[str | None], added: Any, deleted: Any, hunks: Any) -> bool:
    """The INSERT (fast path or full checks) and the full checks on the same
    values give the same row or the same error; returns whether the INSERT
    took the fast path."""
    h = None if hunks is None else Jsonb(json.loads(hunks) if isinstance(hunks, str) else hunks)
    before = full_calls(conn)
    stored = outcome(conn, "INSERT INTO ledger.merge (scope, commit_sha, paths, added, deleted, hunks) "
                           "VALUES ('fast', %s, %s, %s, %s, %s) RETURNING added, deleted, hunks",
                     (f"{next(_shas):08x}", paths, added, deleted, h))
    fast = full_calls(conn) == before
    checked = outcome(conn, "SELECT c.o_added, c.o_deleted, c.o_hunks FROM ledger._check_merge_changes("
                            "ledger.normalize_paths(%s, 'merge.paths', 100000), %s, %s, %s) AS c",
                      (paths, added, deleted, h))
    assert stored == checked, (paths, added, deleted, hunks)
    return fast and stored[0] == "ok"


@pytest.fixture(scope="module")
def conn(module_dsn: str) -> Any:  # noqa: F811
    with psycopg.connect(module_dsn, autocommit=False) as c:
        c.execute("SET track_functions = 'all'")
        c.execute("SELECT ledger.set_hygiene_mode('fast', 'off', p_create => true)")
        yield c
        c.rollback()


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_each_malformed_merge_gives_the_same_row_or_error_both_ways(conn: psycopg.Connection, case: Any) -> None:
    both(conn, *case)


def test_a_normal_merge_takes_the_fast_path(conn: psycopg.Connection) -> None:
    paths = ["src/a.py", "src/b.py", "docs/c.md", "d/e f.py"]
    for added, deleted, hunks in [
        (["src/a.py"], ["docs/c.md"], {"src/a.py": [], "src/b.py": [[1, 2, 1, 3], [10, 0, 11, 4]]}),
        (None, None, {"d/e f.py": [[0, 0, 1, 10]]}),
        ([], [], {}),
        (paths[::-1], None, None),
        # a directory removed with its files, as git lists it
        (["src/a.py"], ["d/e f.py", "d/"], {"src/a.py": [[1, 0, 1, 2]]}),
    ]:
        assert both(conn, paths, added, deleted, hunks), (added, deleted, hunks)
    # a value that is not normal yet is stored normalised, through the full checks
    assert not both(conn, paths, ["./src/a.py"], None, None)
    assert not both(conn, paths, None, None, {"./src/b.py": [[1, 1, 1, 1]]})


PIECES = ["a.py", "b/c.py", "b/", "b/c/", "d/", "./a.py", "a.py:3", "../x", "/abs", " b/c.py", "b//c.py", "A.py",
          "é.py", "e\u0301.py", "x\ty", "q\u200b.py", "C:/w.py", '"a.py"', "b\\c.py", ""]
path = st.sampled_from(PIECES)
hunk = st.one_of(st.lists(st.integers(0, 2**31), min_size=4, max_size=4),
                 st.lists(st.one_of(st.integers(-1, 5), st.just("1"), st.just(1.5), st.none()), max_size=5))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(st.one_of(path, st.none()), min_size=1, max_size=4),
       added=st.one_of(st.none(), st.lists(st.one_of(path, st.none()), max_size=3)),
       deleted=st.one_of(st.none(), st.lists(path, max_size=3)),
       hunks=st.one_of(st.none(), st.dictionaries(path, st.lists(hunk, max_size=3), max_size=3)))
def test_generated_merges_give_the_same_row_or_error_both_ways(conn: psycopg.Connection, paths: Any, added: Any,
                                                               deleted: Any, hunks: Any) -> None:
    both(conn, paths, added, deleted, hunks)
