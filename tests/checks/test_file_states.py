"""The file-state protocol of checked findings: ledger.record_file_states
answers what a merge's requests asked for; answers in any order and more
than once decide what answering them once in merge order decides;
concurrent answers lose nothing; a connection lost between the merge and its
answer leaves the request pending; bad answers are one LD error with nothing
written."""

from __future__ import annotations

import threading
import uuid
from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import findings_ledger as fl
from findings_ledger.errors import FileStateConflict, NotFound, ScopeDenied, ValueInvalid, ValueTooLong

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)
FIXED = "def night_shift():\n    return run()\n"
STUB = "def night_shift():\n    raise NotImplementedError\n"
CHECK_A = {"all": [{"file_contains": {"path": "a.py", "pattern": "def night_shift"}},
                   {"file_lacks": {"path": "a.py", "pattern": "NotImplementedError"}}]}
CHECK_B = {"any": [{"path_absent": "b.py"}, {"file_lacks": {"path": "b.py", "pattern": "triage"}}]}


def setup_scope(conn: psycopg.Connection[Any], scope: str, n_merges: int) -> tuple[list[int], list[int]]:
    """Two checked findings and n merges that touch both their files."""
    a = fl.add_finding(conn, scope, "night_shift is a stub", finding_key="A", kind="drift",
                       resolved_when=CHECK_A, observed_at=OLD).id
    b = fl.add_finding(conn, scope, "b.py still registers triage", finding_key="B", kind="drift",
                       resolved_when=CHECK_B, observed_at=OLD).id
    merges = [fl.record_merge(conn, scope, f"{i + 1:040x}", paths=["a.py", "b.py"], message=f"step {i}").merge_id
              for i in range(n_merges)]
    return [a, b], merges


def outcome(conn: psycopg.Connection[Any], scope: str) -> list[tuple[Any, ...]]:
    """Everything the answers decide: the findings, the settled requests, the
    check audit rows (without ids or times)."""
    findings = conn.execute(
        "SELECT finding_key, superseded_by_merge_id IS NOT NULL, "
        "(SELECT commit_sha FROM ledger.merge m WHERE m.id = f.superseded_by_merge_id), supersede_rule "
        "FROM ledger.finding f WHERE scope = %s ORDER BY finding_key", (scope,)).fetchall()
    requests = conn.execute(
        "SELECT f.finding_key, m.commit_sha, r.outcome, r.part, r.answered_at IS NULL "
        "FROM ledger.file_state_request r JOIN ledger.finding f ON f.id = r.finding_id "
        "JOIN ledger.merge m ON m.id = r.merge_id WHERE r.scope = %s ORDER BY 1, 2", (scope,)).fetchall()
    audit = conn.execute(
        "SELECT f.finding_key, m.commit_sha, a.action, a.evidence FROM ledger.supersession a "
        "JOIN ledger.finding f ON f.id = a.finding_id JOIN ledger.merge m ON m.id = a.merge_id "
        "WHERE a.scope = %s AND a.rule = 'check' ORDER BY 1, 2, 3", (scope,)).fetchall()
    return [*findings, *requests, *audit]


def tree(version: int) -> dict[str, str | None]:
    """The states of a.py and b.py at a commit, from a small alphabet."""
    a = [STUB, FIXED, "pass\n"][version % 3]
    b = [None, "register('triage')\n", "register('coder')\n"][version // 3]
    return {"a.py": a, "b.py": b}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    trees=st.lists(st.integers(0, 8), min_size=1, max_size=5),
    data=st.data(),
)
def test_any_order_and_redelivery_equal_answering_once_in_merge_order(
        ledger_conn: psycopg.Connection, trees: list[int], data: st.DataObject) -> None:
    run = uuid.uuid4().hex[:8]
    in_order, shuffled = f"io-{run}", f"sh-{run}"
    _, merges_io = setup_scope(ledger_conn, in_order, len(trees))
    _, merges_sh = setup_scope(ledger_conn, shuffled, len(trees))
    for m, t in zip(merges_io, trees, strict=True):
        fl.record_file_states(ledger_conn, m, tree(t))
    # every answer at least once, some twice, in any order; some split by path
    answers = [(i, p) for i in range(len(trees)) for p in ("a.py", "b.py")]
    answers += data.draw(st.lists(st.sampled_from(answers), max_size=4), label="redelivered")
    order = data.draw(st.permutations(answers), label="order")
    for i, path in order:
        fl.record_file_states(ledger_conn, merges_sh[i], {path: tree(trees[i])[path]})
    assert outcome(ledger_conn, shuffled) == outcome(ledger_conn, in_order)
    assert fl.pending_file_states(ledger_conn, shuffled) == []


def test_a_held_answer_for_a_later_merge_waits_for_an_earlier_pending_one(ledger_conn: psycopg.Connection) -> None:
    (a, _), (m1, m2, m3) = setup_scope(ledger_conn, "s", 3)
    out = fl.record_file_states(ledger_conn, m2, {"a.py": FIXED, "b.py": None})
    assert {o.finding_id: o.outcome for o in out}[a] == "waiting"
    assert [x.id for x in fl.active_findings(ledger_conn, "s")].count(a) == 1
    # the earlier merge's tree already holds: it supersedes, the later ones are moot
    out = fl.record_file_states(ledger_conn, m1, {"a.py": FIXED, "b.py": "register('coder')"})
    assert {o.finding_id: (o.outcome, o.part) for o in out}[a] == ("held", "all")
    rows = ledger_conn.execute("SELECT merge_id, outcome FROM ledger.file_state_request WHERE finding_id = %s "
                               "ORDER BY merge_id", (a,)).fetchall()
    assert rows == [(m1, "held"), (m2, "moot"), (m3, "moot")]
    assert ledger_conn.execute("SELECT superseded_by_merge_id, supersede_rule FROM ledger.finding WHERE id = %s",
                               (a,)).fetchone() == (m1, "check")
    # answering a moot request is a no-op, not an error
    assert {o.finding_id: o.outcome for o in fl.record_file_states(ledger_conn, m3, {"a.py": STUB})}[a] == "moot"


def test_a_failed_check_names_the_part_and_keeps_the_finding(ledger_conn: psycopg.Connection) -> None:
    (a, b), (m1,) = setup_scope(ledger_conn, "s", 1)
    out = fl.record_file_states(ledger_conn, m1, {"a.py": STUB, "b.py": "register('triage')"})
    assert sorted((o.finding_id, o.outcome, o.part) for o in out) == [
        (a, "failed", "all[1].file_lacks"), (b, "failed", "any")]
    assert sorted(x.id for x in fl.active_findings(ledger_conn, "s")) == [a, b]
    reasons = ledger_conn.execute("SELECT reason FROM ledger.supersession WHERE action = 'check_failed' "
                                  "AND finding_id = %s", (a,)).fetchall()
    assert reasons == [(f"the finding's check did not hold on the tree of {1:040x}: all[1].file_lacks failed",)]


def test_bad_answers_are_one_error_and_change_nothing(ledger_conn: psycopg.Connection) -> None:
    (a, _), (m1,) = setup_scope(ledger_conn, "s", 1)
    before = outcome(ledger_conn, "s")
    cases: list[tuple[Any, dict[str, Any], type[Exception], str]] = [
        (m1 + 100, {"a.py": FIXED}, NotFound, f"unknown merge: merge_id {m1 + 100}"),
        (m1, {"c.py": FIXED}, ValueInvalid, "no file-state request of merge"),
        (m1, {"a.py": 3}, ValueInvalid, "states['a.py']: 3 is not a file's text"),
        (m1, {"a.py": FIXED, "b.py": "x" * (1024 * 1024 + 1)}, ValueTooLong, "1048577 bytes"),
        (m1, {"../a.py": FIXED}, fl.errors.PathRejected, "states['../a.py']"),
    ]
    for merge_id, states, error, text in cases:
        with pytest.raises(error, match=text.replace("[", r"\[").replace("(", r"\(")):
            fl.record_file_states(ledger_conn, merge_id, states)
    with pytest.raises(psycopg.Error, match="invalid states: .* is not an object") as e:
        ledger_conn.execute("SELECT * FROM ledger.record_file_states(%s, '[1]')", (m1,))
    assert e.value.sqlstate == "LD003"
    assert outcome(ledger_conn, "s") == before
    # a NUL cannot reach the function: PostgreSQL's JSON parser refuses it first
    with pytest.raises(psycopg.errors.UntranslatableCharacter):
        ledger_conn.execute("SELECT * FROM ledger.record_file_states(%s, '{\"a.py\": \"a\\u0000b\"}')", (m1,))
    # a second, different answer for a path already answered is a conflict
    fl.record_file_states(ledger_conn, m1, {"a.py": STUB})
    answered = outcome(ledger_conn, "s")
    with pytest.raises(FileStateConflict, match="conflicting states\\['a.py'\\]"):
        fl.record_file_states(ledger_conn, m1, {"a.py": FIXED, "b.py": None})
    assert outcome(ledger_conn, "s") == answered
    stored = ledger_conn.execute("SELECT states, outcome FROM ledger.file_state_request "
                                 "WHERE finding_id = %s", (a,)).fetchone()
    assert stored == ({"a.py": STUB}, "failed")


def test_a_scope_the_connection_may_not_use_is_refused(ledger_conn: psycopg.Connection) -> None:
    _, (m1,) = setup_scope(ledger_conn, "s", 1)
    ledger_conn.execute("SELECT ledger.enable_scope_rls()")
    try:
        ledger_conn.execute("SET ROLE ledger_writer")
        ledger_conn.execute("SELECT set_config('ledger.scopes', 'other', false)")
        with pytest.raises(ScopeDenied, match="merge.scope 's'"):
            fl.record_file_states(ledger_conn, m1, {"a.py": FIXED})
        ledger_conn.execute("SELECT set_config('ledger.scopes', 's', false)")
        assert len(fl.pending_file_states(ledger_conn)) == 2
        assert len(fl.record_file_states(ledger_conn, m1, {"a.py": FIXED, "b.py": None})) == 2
    finally:
        ledger_conn.execute("RESET ROLE")
        ledger_conn.execute("SELECT ledger.disable_scope_rls()")


def test_concurrent_answers_for_two_merges_lose_nothing(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """Two connections answer merges 1 and 2 of the same findings at once:
    whatever commits first, the result is the in-order one."""
    for attempt in range(3):
        scope = f"c{attempt}"
        (a, b), (m1, m2) = setup_scope(ledger_conn, scope, 2)
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def answer(merge_id: int, states: dict[str, str | None],
                   barrier: threading.Barrier = barrier, errors: list[BaseException] = errors) -> None:
            try:
                with psycopg.connect(ledger_dsn, autocommit=False) as conn:
                    barrier.wait()
                    fl.record_file_states(conn, merge_id, states)
                    conn.commit()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=answer, args=(m2, {"a.py": FIXED, "b.py": None})),
                   threading.Thread(target=answer, args=(m1, {"a.py": STUB, "b.py": "register('triage')"}))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        rows = ledger_conn.execute("SELECT finding_id, merge_id, outcome FROM ledger.file_state_request "
                                   "WHERE scope = %s ORDER BY 1, 2", (scope,)).fetchall()
        assert rows == [(a, m1, "failed"), (a, m2, "held"), (b, m1, "failed"), (b, m2, "held")]
        assert ledger_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = %s AND "
                                   "superseded_by_merge_id = %s", (scope, m2)).fetchone() == (2,)


def test_a_connection_lost_before_the_answer_commits_leaves_the_request_pending(
        ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    (a, _), (m1,) = setup_scope(ledger_conn, "s", 1)
    victim = psycopg.connect(ledger_dsn, autocommit=False)
    fl.record_file_states(victim, m1, {"a.py": FIXED, "b.py": None})
    pid = victim.info.backend_pid
    ledger_conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(psycopg.OperationalError):
        victim.execute("SELECT 1")
    victim.close()
    assert [(p.merge_id, p.finding_id) for p in fl.pending_file_states(ledger_conn, "s")][0] == (m1, a)
    # the rerun answers it
    out = fl.record_file_states(ledger_conn, m1, {"a.py": FIXED, "b.py": None})
    assert sorted(o.outcome for o in out) == ["held", "held"]
    assert fl.pending_file_states(ledger_conn, "s") == []
