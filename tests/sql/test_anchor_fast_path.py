"""The finding trigger's anchor fast path: anchors whose keys are already
among the finding's normalised paths and whose values are valid
[first, last] pairs (what a merge's anchor move writes) are kept as given,
without ledger.normalize_path per key (in ledger.tg_finding__prepare, and
for an UPDATE of nothing else, in the WHEN condition of _100_prepare_update,
without calling the function). Everything else still goes through the full
check, with its errors.

Property (hypothesis): any anchors object, written by an UPDATE, is stored
exactly as the same object with every key written with white space before
it (which the fast path never takes, so the full check runs), or both fail
with the same SQLSTATE. And the cases the fast path must not swallow:
paths changed by the same UPDATE, keys not in normal form, rows written
without triggers (reconcile's paths = paths), a merge's anchor move (no
normalize_path call, the anchors stored as the merge decided).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import psycopg
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

_scopes = itertools.count()

PATHS = ["src/a.py", "src/b.py", "docs/"]
# keys: the normal paths, a directory, forms that normalise to a path, one that is not a path of the finding
KEYS = ["src/a.py", "src/b.py", "docs/", "./src/a.py", "src//b.py", "src\\a.py", "src/a.py:3", "src/c.py", "",
        "src/a.py "]
VALUES = [[1, 1], [3, 7], [7, 3], [0, 2], [1], [1, 2, 3], ["1", 2], [1.5, 2], [1, 2147483647], [1, 2147483648],
          [-1, 2], 5, None, {"a": 1}, [2147483647, 2147483647], [1e2, 200]]
anchors = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)


def _finding(conn: psycopg.Connection[Any], paths: list[str]) -> int:
    row = conn.execute("INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, 'a note', 'review', %s) "
                       "RETURNING id", (f"anchors-{next(_scopes)}", paths)).fetchone()
    assert row is not None
    return int(row[0])


def _update(conn: psycopg.Connection[Any], fid: int, value: Any) -> tuple[str, Any]:
    try:
        with conn.transaction():
            row = conn.execute("UPDATE ledger.finding SET anchors = %s WHERE id = %s RETURNING anchors, paths",
                               (None if value is None else Jsonb(value), fid)).fetchone()
            raise _Rollback(row)
    except _Rollback as done:
        return "ok", done.row
    except psycopg.Error as exc:
        return "error", exc.sqlstate


class _Rollback(Exception):
    def __init__(self, row: Any) -> None:
        super().__init__("rollback")
        self.row = row


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=anchors)
@example(value={"src/a.py": [3, 7]})
@example(value={"src/a.py": [3, 7], "./src/a.py": [1, 1]})
@example(value={"docs/": [1, 2]})
@example(value={"src/a.py": [1, 2147483648]})
@example(value={"src/a.py": [1e2, 200]})
@example(value={})
def test_anchors_are_stored_as_the_full_check_stores_them(ledger_conn: psycopg.Connection, value: dict) -> None:
    fid = _finding(ledger_conn, PATHS)
    fast = _update(ledger_conn, fid, value)
    slow = _update(ledger_conn, fid, {" " + k: v for k, v in value.items()})
    if value:
        assert fast == slow
    else:
        assert fast == ("ok", (None, PATHS))  # {} -> NULL


def test_a_key_not_among_the_paths_is_refused_naming_it(ledger_conn: psycopg.Connection) -> None:
    fid = _finding(ledger_conn, PATHS)
    for value, message in (
            ({"src/c.py": [1, 2]},
             "invalid finding.anchors['src/c.py']: 'src/c.py' is not one of the finding's file paths"),
            ({"docs/": [1, 2]}, "invalid finding.anchors['docs/']: 'docs/' is not one of the finding's file paths"),
            ({"src/a.py": [0, 2]}, "invalid finding.anchors['src/a.py']: [0, 2] is not [first_line, last_line]"),
            ({"src/a.py": [5, 2]}, "invalid finding.anchors['src/a.py']: [5, 2] is not [first_line, last_line]")):
        try:
            with ledger_conn.transaction():
                ledger_conn.execute("UPDATE ledger.finding SET anchors = %s WHERE id = %s", (Jsonb(value), fid))
        except psycopg.Error as exc:
            assert exc.sqlstate == "LD003"
            assert str(exc.diag.message_primary).startswith(message), exc.diag.message_primary
        else:
            raise AssertionError(f"{value} was accepted")


def test_paths_changed_with_the_anchors_are_normalised(ledger_conn: psycopg.Connection) -> None:
    fid = _finding(ledger_conn, PATHS)
    row = ledger_conn.execute(
        "UPDATE ledger.finding SET paths = ARRAY[' ./src/a.py', 'src\\x.py:4'], anchors = %s WHERE id = %s "
        "RETURNING paths, anchors", (Jsonb({"src/a.py": [2, 3]}), fid)).fetchone()
    assert row == (["src/a.py", "src/x.py"], {"src/a.py": [2, 3], "src/x.py": [4, 4]})
    # paths alone: anchors on a path that is gone are dropped
    row = ledger_conn.execute("UPDATE ledger.finding SET paths = '{src/x.py}' WHERE id = %s RETURNING paths, anchors",
                              (fid,)).fetchone()
    assert row == (["src/x.py"], {"src/x.py": [4, 4]})


def test_paths_written_without_triggers_are_normalised_by_paths_equals_paths(
        ledger_conn: psycopg.Connection) -> None:
    """reconcile's UPDATE ... SET paths = paths (anchors unchanged) still runs the full normalisation."""
    scope = f"anchors-{next(_scopes)}"
    ledger_conn.execute("SELECT ledger._ensure_scope(%s)", (scope,))
    with ledger_conn.transaction():
        ledger_conn.execute("SET LOCAL session_replication_role = replica")
        row = ledger_conn.execute(
            "INSERT INTO ledger.finding (scope, title, paths, anchors) VALUES (%s, 'a note', "
            "ARRAY['./src/a.py:5', 'src//b.py'], '{\"src/b.py\": [1, 2]}') RETURNING id", (scope,)).fetchone()
    assert row is not None
    fid = row[0]
    row = ledger_conn.execute("UPDATE ledger.finding SET paths = paths WHERE id = %s RETURNING paths, anchors",
                              (fid,)).fetchone()
    assert row == (["src/a.py", "src/b.py"], {"src/a.py": [5, 5], "src/b.py": [1, 2]})


def test_paths_equals_paths_normalises_a_row_whose_anchors_name_its_raw_paths(
        ledger_conn: psycopg.Connection) -> None:
    """A row written without triggers whose anchors' keys are its (not normal)
    paths as written: reconcile's paths = paths leaves the anchors as they
    are, so the UPDATE is not an anchor move and the paths are normalised."""
    scope = f"anchors-{next(_scopes)}"
    ledger_conn.execute("SELECT ledger._ensure_scope(%s)", (scope,))
    with ledger_conn.transaction():
        ledger_conn.execute("SET LOCAL session_replication_role = replica")
        row = ledger_conn.execute(
            "INSERT INTO ledger.finding (scope, title, paths, anchors) VALUES (%s, 'a note', "
            "ARRAY['./src/a.py', 'src//b.py'], '{\"./src/a.py\": [1, 2]}') RETURNING id", (scope,)).fetchone()
    assert row is not None
    row = ledger_conn.execute("UPDATE ledger.finding SET paths = paths WHERE id = %s RETURNING paths",
                              (row[0],)).fetchone()
    assert row == (["src/a.py", "src/b.py"],)


def _calls(conn: psycopg.Connection[Any], name: str) -> int:
    row = conn.execute("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions "
                       "WHERE schemaname = 'ledger' AND funcname = %s", (name,)).fetchone()
    return int(row[0]) if row else 0


def test_a_merge_moves_anchors_without_normalising_each_key(ledger_conn: psycopg.Connection) -> None:
    """A merge that adds lines above anchored findings moves their anchors: the
    finding UPDATE keeps them through the WHEN condition of
    _100_prepare_update (no call of ledger.tg_finding__prepare, so no
    normalize_path call for an anchor key; the merge's own paths and hunks
    are normalised by the merge triggers, counted before), and stores exactly
    what the merge decided."""
    scope = f"anchors-{next(_scopes)}"
    ids = [int(r[0]) for r in ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at) "
        "SELECT %s, 'note ' || i, 'review', ARRAY['src/a.py:' || (10 * i), 'src/b.py'], now() - interval '1 day' "
        "FROM generate_series(1, 5) AS i RETURNING id", (scope,)).fetchall()]
    with ledger_conn.transaction(force_rollback=True):
        ledger_conn.execute("SET LOCAL track_functions = 'all'")
        before = _calls(ledger_conn, "normalize_path")
        # normalize_path calls of the merge's own triggers, measured on a merge that moves no anchor
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES "
                            "(%s, 'aaaa1111', '{src/c.py}', %s)", (scope, json.dumps({"src/c.py": [[1, 0, 1, 3]]})))
        own = _calls(ledger_conn, "normalize_path") - before
        prepared = _calls(ledger_conn, "tg_finding__prepare")
        before = _calls(ledger_conn, "normalize_path")
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES "
                            "(%s, 'bbbb2222', '{src/a.py}', %s)", (scope, json.dumps({"src/a.py": [[1, 0, 1, 3]]})))
        assert _calls(ledger_conn, "tg_finding__prepare") - prepared == 0  # five anchors moved, no call
        assert _calls(ledger_conn, "normalize_path") - before == own
        moved = ledger_conn.execute(
            "SELECT f.id, f.anchors, f.paths, a.detail -> 'anchor_moves' -> 0 FROM ledger.finding f "
            "JOIN ledger.read_audit(%s) a ON a.finding_id = f.id AND a.action = 'anchor_moved' "
            "WHERE f.id = ANY (%s) ORDER BY f.id", (scope, ids)).fetchall()
        assert [(r[1], r[2]) for r in moved] == [({"src/a.py": [10 * i + 3, 10 * i + 3]}, ["src/a.py", "src/b.py"])
                                                 for i in range(1, 6)]
        assert all(r[1] == {r[3]["path"]: r[3]["to"]} for r in moved)


# characters that normalize_path trims, rewrites or rejects (white space, a no-break space, \, ", ., :, a digit, a
# combining accent and the NFD/NFC pair, the Kelvin sign NFC rewrites, a zero-width space, U+0085), and plain ones
PATH_CHARS = st.sampled_from(list("ab/.:1 \\\"K") + ["\u00a0", "\u0301", "\u00e9", "\u212a", "\u200b", "\u0085", ".py",
                                                        ":3", ":2-4"])
raw_paths = st.lists(st.lists(PATH_CHARS, min_size=1, max_size=8).map("".join), min_size=1, max_size=3)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=raw_paths)
@example(paths=["./src/a.py", "src\\b.py:4", "docs/"])
@example(paths=["src/cafe\u0301.py", "\u212a.py"])
def test_anchors_on_any_stored_path_are_stored_as_the_full_check_stores_them(
        ledger_conn: psycopg.Connection, paths: list[str]) -> None:
    """The fast path takes a key that is one of the stored paths as normal:
    that holds only while every path ledger.normalize_paths stores (its own
    fast path included) is a fixpoint of ledger.normalize_path. Anchors on
    every stored file path give what the same anchors written with white
    space before each key give (the full check, which normalises each key):
    stored alike, or refused with the same error (a stored path such as
    'a:2-4' is read as a line range when it is an anchor's key)."""
    try:
        with ledger_conn.transaction():
            fid = _finding(ledger_conn, paths)
    except psycopg.Error:
        return  # paths the trigger refuses: nothing stored
    stored = ledger_conn.execute("SELECT paths FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert stored is not None
    value = {p: [1, 2] for p in stored[0] if not p.endswith("/")}
    if not value:
        return
    fast = _update(ledger_conn, fid, value)
    assert fast == _update(ledger_conn, fid, {" " + k: v for k, v in value.items()})


def test_an_anchor_move_on_a_row_written_without_triggers_is_checked(ledger_conn: psycopg.Connection) -> None:
    """A row written without triggers (session_replication_role = replica)
    whose paths are two-dimensional, or hold a NULL and the anchors a key
    that is none of them, is not kept as given by the WHEN condition of
    _100_prepare_update: ledger.tg_finding__prepare runs and refuses those
    paths with its own SQLSTATE (the condition asks for one-dimensional
    paths before anchors - paths, which would raise 2202E on any other
    array)."""
    for paths, key, sqlstate in (("{{a.py,b.py}}", "a.py", "LD003"), ("{a.py,NULL}", "zz.py", "LD001")):
        scope = f"anchors-{next(_scopes)}"
        ledger_conn.execute("SELECT ledger.set_hygiene_mode(%s, 'on', p_create => true)", (scope,))
        with ledger_conn.transaction(force_rollback=True):
            ledger_conn.execute("SET LOCAL session_replication_role = replica")
            row = ledger_conn.execute(
                "INSERT INTO ledger.finding (scope, title, kind, paths) VALUES (%s, 'a note', 'review', %s::text[]) "
                "RETURNING id", (scope, paths)).fetchone()
            assert row is not None
            ledger_conn.execute("SET LOCAL session_replication_role = origin")
            try:
                with ledger_conn.transaction():
                    ledger_conn.execute("UPDATE ledger.finding SET anchors = %s WHERE id = %s",
                                        (Jsonb({key: [1, 2]}), row[0]))
            except psycopg.Error as exc:
                assert exc.sqlstate == sqlstate, (paths, exc.sqlstate, exc.diag.message_primary)
            else:
                raise AssertionError(f"anchors on paths {paths} were kept as given")
