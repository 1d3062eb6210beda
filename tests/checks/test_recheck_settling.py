"""Recheck requests settle as file-state requests do: in merge order per
finding (the first merge whose answer is resolved retires it; a resolved
answer waits for an earlier unanswered request), moot once the finding is
retired by any rule (not claimable; an answer changes nothing). A claim
carries what a verifier needs; only the lease holder answers; a machine's
answer about a merge before a person's later decision never overrides it;
a misspelt scope is an error."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest

import findings_ledger as fl
from findings_ledger.errors import LeaseInvalid, NotFound

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)


def finding(conn: psycopg.Connection[Any], key: str = "F1", path: str = "f.py", **kw: Any) -> int:
    return fl.add_finding(conn, "s", f"{path} still registers triage", finding_key=key, paths=[path],
                          kind="drift", observed_at=OLD, **kw).id


def touches(conn: psycopg.Connection[Any], n: int, path: str = "f.py") -> list[int]:
    return [fl.record_merge(conn, "s", f"{i + 1:040x}", paths=[path], message=f"step {i}").merge_id
            for i in range(n)]


def requests(conn: psycopg.Connection[Any], fid: int) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT merge_id, resolved, outcome FROM ledger.recheck_request WHERE finding_id = %s "
                        "ORDER BY merge_id", (fid,)).fetchall()


def retired_by(conn: psycopg.Connection[Any], fid: int) -> tuple[Any, ...]:
    return conn.execute("SELECT superseded_by_merge_id, supersede_rule FROM ledger.finding WHERE id = %s",
                        (fid,)).fetchone()


def audit(conn: psycopg.Connection[Any], fid: int) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT merge_id, action, actor FROM ledger.supersession WHERE finding_id = %s "
                        "AND rule IN ('recheck', 'check') ORDER BY id", (fid,)).fetchall()


@pytest.fixture
def recheck(ledger_conn: psycopg.Connection) -> psycopg.Connection:
    fl.set_match_policy(ledger_conn, "s", touch="recheck", touch_kind="drift", create=True)
    return ledger_conn


def test_a_resolved_answer_waits_for_an_earlier_request_and_retires_at_the_first(
        recheck: psycopg.Connection) -> None:
    f = finding(recheck)
    m1, m2, m3 = touches(recheck, 3)
    ids = {c.merge_id: c.id for c in fl.claim_rechecks(recheck, "s", "v", 10)}
    # merge 2's answer first: it waits for merge 1's
    r2 = fl.answer_recheck(recheck, ids[m2], True, "gone at step 1", verifier="v")
    assert (r2.resolved, r2.outcome) == (True, None)
    assert retired_by(recheck, f) == (None, None)
    # merge 1 still true: merge 2's answer settles and retires it there; merge 3's request is moot
    r1 = fl.answer_recheck(recheck, ids[m1], False, "still there at step 0", verifier="v")
    assert r1.outcome == "kept"
    assert requests(recheck, f) == [(m1, False, "kept"), (m2, True, "resolved"), (m3, None, "moot")]
    assert retired_by(recheck, f) == (m2, "recheck")
    assert audit(recheck, f) == [(m1, "recheck_kept", "v"), (m2, "superseded", "v")]
    # the moot one is not claimable; answering it under its lease changes nothing
    assert fl.claim_rechecks(recheck, "s", "v", 10) == []
    r3 = fl.answer_recheck(recheck, ids[m3], False, "still there at step 2", verifier="v")
    assert (r3.resolved, r3.outcome) == (False, "moot")
    assert audit(recheck, f)[-1] == (m3, "recheck_moot", "v")
    assert retired_by(recheck, f) == (m2, "recheck")


def test_the_first_resolved_merge_wins_whatever_the_order(recheck: psycopg.Connection) -> None:
    f = finding(recheck)
    m1, m2 = touches(recheck, 2)
    ids = {c.merge_id: c.id for c in fl.claim_rechecks(recheck, "s", "v", 10)}
    fl.answer_recheck(recheck, ids[m2], True, "gone", verifier="v")
    fl.answer_recheck(recheck, ids[m1], True, "gone already", verifier="v")
    assert requests(recheck, f) == [(m1, True, "resolved"), (m2, True, "moot")]
    assert retired_by(recheck, f) == (m1, "recheck")
    assert [a[1] for a in audit(recheck, f)] == ["superseded"]


def test_a_finding_retired_by_any_rule_moots_its_open_requests(recheck: psycopg.Connection) -> None:
    """Today's bug: a request of a retired finding stayed claimable and a
    later false wrote recheck_kept on it."""
    f = finding(recheck)
    g = finding(recheck, "F2", "g.py")
    m1, m2 = touches(recheck, 2)
    mg = fl.record_merge(recheck, "s", "c" * 40, paths=["g.py"], message="touch g").merge_id
    claimed = {(c.finding_id, c.merge_id): c.id for c in fl.claim_rechecks(recheck, "s", "v", 1)}
    assert list(claimed) == [(f, m1)]
    # a person dismisses f; a re-review retires g: every open request of both is moot at once
    fl.dismiss_finding(recheck, f, "wont_fix", "alice", "not worth it")
    fl.replace_findings(recheck, "s", "review-2", [], kind="drift")
    assert requests(recheck, f) == [(m1, None, "moot"), (m2, None, "moot")]
    assert requests(recheck, g) == [(mg, None, "moot")]
    assert fl.claim_rechecks(recheck, "s", "w", 10) == []
    # the claimed one's answer is kept on the row, audited recheck_moot, and changes nothing
    out = fl.answer_recheck(recheck, claimed[(f, m1)], False, "still there", verifier="v")
    assert (out.resolved, out.outcome) == (False, "moot")
    assert [a[1] for a in audit(recheck, f)] == ["recheck_moot"]
    assert recheck.execute("SELECT count(*) FROM ledger.supersession WHERE action = 'recheck_kept'"
                           ).fetchone() == (0,)


def test_a_claim_carries_what_a_verifier_needs(recheck: psycopg.Connection) -> None:
    f = fl.add_finding(recheck, "s", "cli.py still registers triage", description="Remove the triage command.",
                       finding_key="F1", paths=["pkg/cli.py"], kind="drift", severity="high", observed_at=OLD).id
    fl.record_merge(recheck, "s", "a" * 40, paths=["pkg/cli.py"],
                    message="\n\x1b[31mDrop\u202e the triage\u2028 command\x1b[0m\r\n\nLonger body.")
    (c,) = fl.claim_rechecks(recheck, "s", "v", 10)
    assert (c.finding_id, c.verifier, c.title, c.description, c.paths, c.kind, c.severity, c.commit_sha,
            c.subject) == (f, "v", "cli.py still registers triage", "Remove the triage command.", ["pkg/cli.py"],
                           "drift", "high", "a" * 40, "[31mDrop the triage command[0m")
    assert c.lease_until is not None
    # the same through SQL: the new columns by name
    recheck.execute("UPDATE ledger.recheck_request SET lease_until = NULL, verifier = NULL")
    row = recheck.execute("SELECT title, kind, severity, commit_sha, subject FROM ledger.claim_rechecks('s', 'w', 1)"
                          ).fetchone()
    assert row == ("cli.py still registers triage", "drift", "high", "a" * 40, "[31mDrop the triage command[0m")


def test_only_the_lease_holder_answers(recheck: psycopg.Connection) -> None:
    f = finding(recheck)
    touches(recheck, 1)
    (c,) = fl.claim_rechecks(recheck, "s", "v1", 1)
    for verifier, state in ((None, "LD002"), ("", "LD002"), ("v2", "LD103")):
        with pytest.raises(psycopg.Error) as e:
            recheck.execute("SELECT * FROM ledger.answer_recheck(%s, true, 'gone', %s)", (c.id, verifier))
        assert e.value.sqlstate == state, verifier
    with pytest.raises(psycopg.Error) as e:
        recheck.execute("SELECT * FROM ledger.answer_recheck(%s, true, 'gone')", (c.id,))
    assert e.value.sqlstate == "42883"  # no such function: the verifier has no default
    with pytest.raises(LeaseInvalid, match="leased to 'v1', not to 'v2'"):
        fl.answer_recheck(recheck, c.id, True, "gone", verifier="v2")
    assert audit(recheck, f) == []
    fl.answer_recheck(recheck, c.id, True, "gone", verifier="v1")
    assert audit(recheck, f) == [(c.merge_id, "superseded", "v1")]
    # the same answer from another verifier is not the same answer
    with pytest.raises(LeaseInvalid, match="was answered before"):
        fl.answer_recheck(recheck, c.id, True, "gone", verifier="v2")


def test_a_stale_recheck_never_overrides_a_later_restore(recheck: psycopg.Connection) -> None:
    """Claimed at merge 1; a person dismisses the finding, then restores it:
    the verifier's late 'resolved' about merge 1 does not retire it again."""
    f = finding(recheck)
    (m1,) = touches(recheck, 1)
    (c,) = fl.claim_rechecks(recheck, "s", "v", 1)
    fl.dismiss_finding(recheck, f, "false_positive", "alice", "not stale")
    fl.restore_finding(recheck, f, "bob", "it is stale after all")
    out = fl.answer_recheck(recheck, c.id, True, "gone", verifier="v")
    assert out.outcome == "moot"
    assert retired_by(recheck, f) == (None, None)
    assert [a[1] for a in audit(recheck, f)] == ["recheck_overruled"]
    assert [x.id for x in fl.active_findings(recheck, "s")] == [f]
    # a merge after the restore is rechecked and decides
    m2 = fl.record_merge(recheck, "s", "b" * 40, paths=["f.py"], message="after").merge_id
    (c2,) = fl.claim_rechecks(recheck, "s", "v", 1)
    assert c2.merge_id == m2
    fl.answer_recheck(recheck, c2.id, True, "gone now", verifier="v")
    assert retired_by(recheck, f) == (m2, "recheck")
    assert m1 < m2


def test_a_stale_check_answer_never_overrides_a_later_restore(ledger_conn: psycopg.Connection) -> None:
    """A file-state request pending at merge 1; the finding is dismissed and
    restored by people; the answer for merge 1 holds but is overruled (audit
    check_overruled, the finding stays); merge 2's holding answer retires it."""
    f = fl.add_finding(ledger_conn, "s", "a.py still imports triage", finding_key="C1", kind="drift",
                       observed_at=OLD, resolved_when={"file_lacks": {"path": "a.py", "pattern": "triage"}}).id
    m1 = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["a.py"], message="one").merge_id
    fl.dismiss_finding(ledger_conn, f, "wont_fix", "alice", "later")
    fl.restore_finding(ledger_conn, f, "bob", "now")
    out = fl.record_file_states(ledger_conn, m1, {"a.py": "import os\n"})
    assert [(o.finding_id, o.outcome) for o in out] == [(f, "overruled")]
    assert retired_by(ledger_conn, f) == (None, None)
    assert audit(ledger_conn, f)[-1] == (m1, "check_overruled", None)
    m2 = fl.record_merge(ledger_conn, "s", "b" * 40, paths=["a.py"], message="two").merge_id
    assert [(o.finding_id, o.outcome) for o in fl.record_file_states(ledger_conn, m2, {"a.py": "import os\n"})] == [
        (f, "held")]
    assert retired_by(ledger_conn, f) == (m2, "check")


def test_a_misspelt_scope_is_an_error(recheck: psycopg.Connection) -> None:
    finding(recheck)
    touches(recheck, 1)
    with pytest.raises(NotFound, match="unknown scope: 'S'"):
        fl.claim_rechecks(recheck, "S", "v", 1)
    with pytest.raises(NotFound, match="unknown scope: 'nope'"):
        fl.pending_file_states(recheck, "nope")
    with pytest.raises(psycopg.Error) as e:
        recheck.execute("SELECT * FROM ledger.pending_file_states('nope')")
    assert e.value.sqlstate == "LD005"
    assert fl.pending_file_states(recheck, "s") == []
    assert len(fl.claim_rechecks(recheck, "s", "v", 1)) == 1
