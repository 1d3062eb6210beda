"""``ledger.record_merges`` / ``fl.record_merges``: a batch of merges of one
scope in one statement. What one ``record_merge`` per merge returns, per
element and in order (redeliveries and abbreviations included); every bad
element named by its index and field with a project SQLSTATE, and nothing
of the batch written. The decisions against every other way of writing
merges: tests/decisions/test_decisions_writers.py; ``gitlog.replay``, which records
through it: tests/cli/test_gitlog.py; row-level security: tests/access/test_security_rls.py.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl

T = datetime(2026, 6, 2, tzinfo=timezone.utc)


def state(conn: psycopg.Connection[Any]) -> list[list[tuple[Any, ...]]]:
    return [conn.execute(q).fetchall() for q in (
        "SELECT id, scope, commit_sha, paths, message, merged_at, added, deleted, hunks FROM ledger.merge ORDER BY id",
        "SELECT id, superseded_at IS NOT NULL, superseded_by_merge_id, anchors FROM ledger.finding ORDER BY id",
        "SELECT id, finding_id, merge_id, action, rule, evidence, detail FROM ledger.supersession ORDER BY id",
    )]


def history(conn: psycopg.Connection[Any], scope: str) -> list[int]:
    retire_drift_on_touch(conn, scope)  # the path rule as such on the drift findings
    return [
        fl.add_finding(conn, scope, "a.py is stale", paths=["src/a.py:42"], kind="drift", observed_at=T),
        fl.add_finding(conn, scope, "Login fails", finding_key="F-7", kind="review", observed_at=T),
        fl.add_finding(conn, scope, "docs/x.md is missing", paths=["docs/x.md"], kind="drift", expects="present",
                       observed_at=T),
    ]


MERGES: list[dict[str, Any]] = [
    {"commit_sha": "aaaa0001", "paths": ["src/a.py"], "message": "Insert a header",
     "merged_at": datetime(2026, 6, 3, tzinfo=timezone.utc), "hunks": {"src/a.py": [[0, 0, 1, 10]]}},
    {"commit_sha": "aaaa0002", "message": "Mentions F-7 in passing",
     "merged_at": datetime(2026, 6, 4, tzinfo=timezone.utc)},
    {"commit_sha": "aaaa0003", "paths": ["docs/x.md"], "added": ["docs/x.md"], "message": "Fixes F-7",
     "merged_at": datetime(2026, 6, 5, tzinfo=timezone.utc), "branch": "main"},
    {"commit_sha": "aaaa0004", "paths": ["src/a.py"], "hunks": {"src/a.py": [[52, 1, 52, 1]]},
     "merged_at": datetime(2026, 6, 6, tzinfo=timezone.utc), "node_id": "n-4"},
    {"commit_sha": "aaaa0001", "paths": ["src/a.py"], "message": "Insert a header",  # redelivered in the batch
     "merged_at": datetime(2026, 6, 3, tzinfo=timezone.utc), "hunks": {"src/a.py": [[0, 0, 1, 10]]}},
    {"commit_sha": "aaaa0000", "merged_at": datetime(2026, 5, 1, tzinfo=timezone.utc)},  # before the findings
]


def test_a_batch_returns_what_one_merge_at_a_time_returns(ledger_dsn_factory: Any) -> None:
    results, states = [], []
    for batch in (False, True):
        with psycopg.connect(ledger_dsn_factory(), autocommit=True) as conn:
            history(conn, "s")
            if batch:
                got = fl.record_merges(conn, "s", MERGES)
            else:
                got = [fl.record_merge(conn, "s", m["commit_sha"], m.get("paths", ()),
                                       **{k: v for k, v in m.items() if k not in ("commit_sha", "paths")})
                       for m in MERGES]
            results.append(got)
            states.append(state(conn))
    one_by_one, batched = results
    assert batched == one_by_one
    assert states[1] == states[0]
    assert [r.recorded for r in batched] == [True, True, True, True, False, True]
    assert batched[4].merge_id == batched[0].merge_id and batched[4].decisions == batched[0].decisions
    assert batched[0].by_action("anchor_moved") and batched[3].superseded == [1]  # 42 -> 52, then line 52
    assert batched[2].superseded == [2, 3]  # the key, and the present path added
    assert batched[1].by_action("mention")


def test_a_redelivery_and_an_abbreviation_of_recorded_merges(ledger_conn: psycopg.Connection[Any]) -> None:
    history(ledger_conn, "s")
    first = fl.record_merge(ledger_conn, "s", "abcdef12" + "0" * 32, ["src/a.py"], message="Fixes F-7",
                            merged_at=T.replace(day=9))
    again = fl.record_merges(ledger_conn, "s", [
        {"commit_sha": "ABCDEF12", "paths": ["src/a.py"], "message": "Fixes F-7", "merged_at": T.replace(day=9)},
        {"commit_sha": "bbbb", "merged_at": T.replace(day=10)},
    ])
    assert [(r.merge_id, r.recorded) for r in again][0] == (first.merge_id, False)
    assert again[1].recorded and again[1].merge_id > first.merge_id  # (the conflict drew an id, as one row would)
    assert again[0].decisions == first.decisions
    assert fl.record_merges(ledger_conn, "s", []) == []


def test_abbreviations_decide_as_one_merge_at_a_time(ledger_dsn_factory: Any) -> None:
    """'abcd' names the recorded abcd1111 before abcd2222 exists (not ambiguous); a short repeat of
    an earlier element of the batch is that element's merge."""
    batch = [{"commit_sha": sha, "merged_at": T} for sha in
             ("abcd", "abcd2222", "ef01" + "2" * 36, "EF012222", "9876", "98765432")]
    outcomes = []
    for batched in (False, True):
        with psycopg.connect(ledger_dsn_factory(), autocommit=True) as conn:
            fl.record_merge(conn, "s", "abcd1111", merged_at=T)
            if batched:
                got = fl.record_merges(conn, "s", batch)
            else:
                got = [fl.record_merge(conn, "s", m["commit_sha"], merged_at=T) for m in batch]
            outcomes.append(([(r.merge_id, r.recorded) for r in got], state(conn)))
    assert outcomes[1] == outcomes[0]
    assert [recorded for _, recorded in outcomes[1][0]] == [False, True, True, False, True, False]
    ids = [i for i, _ in outcomes[1][0]]
    assert ids[0] == 1 and ids[3] == ids[2] and ids[5] == ids[4]


def test_more_than_the_limit_is_refused(ledger_conn: psycopg.Connection[Any]) -> None:
    err = _sql_error(ledger_conn, Jsonb([{"commit_sha": f"{n:08x}"} for n in range(10_001)]))
    assert err.sqlstate == "LD004" and "10001 merges, at most 10000" in str(err)


def test_an_empty_batch_still_checks_the_scope(ledger_conn: psycopg.Connection[Any]) -> None:
    assert fl.record_merges(ledger_conn, "s", []) == []
    with pytest.raises(fl.ValueInvalid, match="merge.scope"):
        fl.record_merges(ledger_conn, "a,b", [])
    with pytest.raises(fl.ValueRequired):
        fl.record_merges(ledger_conn, " ", [])


@pytest.mark.parametrize(("merge", "named"), [
    ("abcd", r"merges\[1\]: expected an object"),
    ({"commit_sha": "abcd", "merged_at": datetime(2026, 6, 1)},  # noqa: DTZ001 (naive on purpose)
     r"merges\[1\]\.merged_at: '2026-06-01T00:00:00' is not an ISO 8601 time with its offset"),
    ({"commit_sha": "abcd", "merged_at": date(2026, 6, 1)}, r"merges\[1\]\.merged_at: '2026-06-01'"),
    ({"commit_sha": "abcd", "hunks": [[1, 1, 1, 1]]}, r"merges\[1\]\.hunks: expected an object"),
])
def test_the_python_api_names_a_bad_merge_through_the_database(
    ledger_conn: psycopg.Connection[Any], merge: Any, named: str
) -> None:
    with pytest.raises(fl.ValueInvalid, match=named):
        fl.record_merges(ledger_conn, "s", [merge])


def _sql_error(conn: psycopg.Connection[Any], merges: Any) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as info:
        conn.execute("SELECT * FROM ledger.record_merges('s', %s)", (merges,))
    return info.value


@pytest.mark.parametrize(("merges", "code", "named"), [
    (Jsonb({"commit_sha": "abcd"}), "LD003", "invalid merges: expected an array"),
    (None, "LD003", "invalid merges: expected an array"),
    (Jsonb(["abcd"]), "LD003", "invalid merges[1]: expected an object"),
    (Jsonb([{"commit_sha": "abcd"}, {"sha": "abcd"}]), "LD003", "invalid merges[2].sha: unknown field"),
    (Jsonb([{"commit_sha": "abcd", "paths": "a.py"}]), "LD003",
     "invalid merges[1].paths: expected an array of strings"),
    (Jsonb([{"commit_sha": "abcd", "paths": ["a.py", 5]}]), "LD003", "merges[1].paths"),
    (Jsonb([{"commit_sha": 12}]), "LD003", "invalid merges[1].commit_sha: expected a string, got number 12"),
    (Jsonb([{"commit_sha": "abcd", "hunks": [[1, 1, 1, 1]]}]), "LD003", "invalid merges[1].hunks: expected an object"),
    (Jsonb([{"paths": ["a.py"]}]), "LD002", "merges[1].commit_sha is required"),
    (Jsonb([{"commit_sha": "abcd"}, {"commit_sha": "abce", "merged_at": "yesterday-ish"}]), "LD003",
     "invalid merges[2].merged_at: 'yesterday-ish' is not an ISO 8601 time with its offset"),
    (Jsonb([{"commit_sha": "abcd", "merged_at": "now"}]), "LD003", "invalid merges[1].merged_at: 'now'"),
    (Jsonb([{"commit_sha": "abcd", "merged_at": "01/02/2026"}]), "LD003", "invalid merges[1].merged_at"),
    (Jsonb([{"commit_sha": "abcd", "merged_at": "2026-06-01 12:00"}]), "LD003", "invalid merges[1].merged_at"),
    (Jsonb([{"commit_sha": "abcd", "merged_at": "2026-13-01T00:00:00Z"}]), "LD003",
     "invalid merges[1].merged_at: '2026-13-01T00:00:00Z' is not a time"),
    (Jsonb([{"commit_sha": "abcd", "merged_at": "9999-01-01T00:00:00Z"}]), "LD003",
     "merges[1]: invalid merge.merged_at"),
    (Jsonb([{"commit_sha": "abcd"}, {"commit_sha": "abce", "paths": ["/etc/passwd"]}]), "LD001",
     "merges[2]: invalid path in merge.paths[1]: '/etc/passwd'"),
    (Jsonb([{"commit_sha": "abcd", "hunks": {"a.py": [[1, 1, 1, 1]]}}]), "LD003", "merges[1]: invalid merge.hunks"),
    (Jsonb([{"commit_sha": "not hex"}]), "LD003", "merges[1]: invalid merge.commit_sha: 'not hex'"),
    (Jsonb([{"commit_sha": "abcd"}, {"commit_sha": "eeee"}, {"commit_sha": "x" * 65}]), "LD004",
     "merges[3]: invalid merge.commit_sha: 65 characters"),
    (Jsonb([{"commit_sha": "abcd"}, {"commit_sha": "eeee", "node_id": "a\nb"}]), "LD003",
     "merges[2]: invalid merge.node_id"),
])
def test_bad_input_names_the_element_and_field_and_writes_nothing(
    ledger_conn: psycopg.Connection[Any], merges: Any, code: str, named: str
) -> None:
    history(ledger_conn, "s")
    before = state(ledger_conn)
    err = _sql_error(ledger_conn, merges)
    assert err.sqlstate == code, str(err)
    assert named in str(err), str(err)
    assert state(ledger_conn) == before


def test_a_conflicting_redelivery_in_a_batch_writes_none_of_it(ledger_conn: psycopg.Connection[Any]) -> None:
    history(ledger_conn, "s")
    fl.record_merge(ledger_conn, "s", "abcd", ["src/a.py"], merged_at=T.replace(day=9))
    before = state(ledger_conn)
    with pytest.raises(fl.MergeConflict, match=r"^merges\[2\]: conflicting redelivery .* paths") as info:
        fl.record_merges(ledger_conn, "s", [{"commit_sha": "eeee", "paths": ["docs/x.md"], "added": ["docs/x.md"]},
                                            {"commit_sha": "abcd", "paths": ["src/b.py"]}])
    assert "ON CONFLICT" in (info.value.hint or "")  # the row's hint is kept
    assert state(ledger_conn) == before


def test_the_python_api_refuses_an_unknown_field(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(fl.ValueInvalid, match=r"merges\[2\]\.sha: unknown field"):
        fl.record_merges(ledger_conn, "s", [{"commit_sha": "abcd"}, {"sha": "abcd"}])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.merge").fetchone() == (0,)


def test_only_writers_record_batches(ledger_conn: psycopg.Connection[Any]) -> None:
    grants = ledger_conn.execute(
        "SELECT r.rolname FROM pg_roles r WHERE r.rolname IN ('ledger_writer', 'ledger_reader', 'ledger_agent', "
        "'ledger_admin') "
        "AND has_function_privilege(r.oid, 'ledger.record_merges(text, jsonb)', 'EXECUTE') ORDER BY 1").fetchall()
    assert grants == [("ledger_writer",)]
