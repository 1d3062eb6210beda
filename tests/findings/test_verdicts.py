"""Verdicts on flagged findings (ledger.verify_finding), given by the agent
that read the finding in its prompt.

A drift finding whose touch mode is flag (the shipped default) stays active
when a merge touches its file; the audit says flagged and the prompt lists
the touch with the hint to verify. ``resolved`` supersedes the finding by
the latest touch it was shown (rule verified, audit first); ``still_true``
is audited verified_still_true and clears the flag: only later touches are
listed. Bad input and findings that are not active write nothing. Every
call runs as ledger_agent, the one role granted the function.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from support.security import as_role, counts

import findings_ledger as fl
from findings_ledger.errors import InvalidTransition, NotFound, ValueInvalid, ValueRequired, ValueTooLong

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)
SHA1 = "342b7a0b9ad4" + "0" * 28
SHA2 = "ad342a9c0ffe" + "0" * 28
SHA3 = "7f5130c1d2e3" + "0" * 28


def drift(conn: psycopg.Connection[Any], key: str = "F1", path: str = "a.py", scope: str = "s") -> int:
    return fl.add_finding(conn, scope, f"{path} is stale", finding_key=key, paths=[path], kind="drift",
                          observed_at=OLD).id


def touch(conn: psycopg.Connection[Any], sha: str, message: str, path: str = "a.py", node_id: str | None = None,
          scope: str = "s") -> int:
    r = fl.record_merge(conn, scope, sha, paths=[path], message=message, node_id=node_id)
    assert [d.action for d in r.decisions] == ["flagged"]
    return r.merge_id


def verify(conn: psycopg.Connection[Any], finding_id: int, verdict: str, evidence: str = "checked a.py at HEAD",
           verifier: str = "agent-7") -> fl.AuditEntry:
    with as_role(conn, "ledger_agent") as agent:
        return fl.verify_finding(agent, finding_id, verdict, evidence, verifier)


def finding_row(conn: psycopg.Connection[Any], fid: int) -> tuple[Any, ...]:
    row = conn.execute("SELECT superseded_at IS NOT NULL, superseded_by, superseded_by_merge_id, supersede_rule "
                       "FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert row is not None
    return tuple(row)


def touches(conn: psycopg.Connection[Any], fid: int) -> list[str]:
    """The shas of the touches the prompt lists for finding ``fid`` (absent: not in the prompt)."""
    for f in fl.read_prompt_findings(conn, "s").findings:
        if f.id == fid:
            return [t.sha for t in f.touched_by]
    raise AssertionError(f"finding {fid} is not in the prompt")


def test_resolved_supersedes_by_the_latest_touch_with_the_audit_row_first(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Move night-shift into its own package")
    m2 = touch(ledger_conn, SHA2, "Drop the night-shift command\n\nbody", node_id="group-3")
    a = verify(ledger_conn, f, "resolved", "a.py no longer registers night-shift", "agent-7")
    assert (a.finding_id, a.merge_id, a.action, a.rule, a.evidence, a.actor) == (
        f, m2, "superseded", "verified", "a.py no longer registers night-shift", "agent-7")
    assert a.detail == {"verdict": "resolved", "verifier": "agent-7", "commit_sha": SHA2,
                        "subject": "Drop the night-shift command", "finding_key": "F1", "hygiene_mode": "on"}
    assert (a.commit_sha, a.subject) == (SHA2, "Drop the night-shift command")
    assert finding_row(ledger_conn, f) == (True, "group-3", m2, "verified")
    assert fl.active_findings(ledger_conn, "s") == []
    # the audit row was written before the change: it is the last row, and read_audit gives it as written
    audit = fl.read_audit(ledger_conn, "s", finding_id=f)
    assert [(x.action, x.rule, x.merge_id) for x in audit] == [
        ("flagged", "path", audit[0].merge_id), ("flagged", "path", m2), ("superseded", "verified", m2)]
    assert audit[-1].id == a.id


def test_resolved_without_a_node_id_is_superseded_by_the_sha(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    m1 = touch(ledger_conn, SHA1, "Touch a.py")
    verify(ledger_conn, f, "resolved")
    assert finding_row(ledger_conn, f) == (True, SHA1, m1, "verified")


def test_resolved_on_a_finding_never_touched_is_superseded_by_the_verifier(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    a = verify(ledger_conn, f, "RESOLVED", "the file is gone", "agent-9")
    assert (a.action, a.merge_id, a.commit_sha) == ("superseded", None, None)
    assert a.detail == {"verdict": "resolved", "verifier": "agent-9", "finding_key": "F1", "hygiene_mode": "on"}
    assert finding_row(ledger_conn, f) == (True, "agent-9", None, "verified")


def test_still_true_clears_the_flag_and_later_touches_flag_it_again(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    quiet = drift(ledger_conn, "F2", "b.py")
    m1 = touch(ledger_conn, SHA1, "Touch a.py")
    assert touches(ledger_conn, f) == [SHA1]
    a = verify(ledger_conn, f, "still-true", "a.py:88 still registers night-shift")
    assert (a.action, a.rule, a.merge_id, a.evidence) == (
        "verified_still_true", "verified", m1, "a.py:88 still registers night-shift")
    assert a.detail["verdict"] == "still_true" and a.detail["commit_sha"] == SHA1
    assert finding_row(ledger_conn, f) == (False, None, None, None)
    # the next prompt shows the finding without touches and without the hint
    sel = fl.read_prompt_findings(ledger_conn, "s")
    by_id = {x.id: x for x in sel.findings}
    assert (by_id[f].touched_count, by_id[f].touched_by, by_id[f].touch_lines, by_id[f].flagged) == (0, (), (), False)
    assert by_id[f].prompt_text() == "a.py is stale"
    assert sel.included_chars == len("a.py is stale") + len("b.py is stale")
    assert by_id[quiet].touched_count == 0
    # a later touch flags it again; only that touch is listed, and a verdict judges it
    m3 = touch(ledger_conn, SHA3, "Touch a.py again")
    assert touches(ledger_conn, f) == [SHA3]
    b = verify(ledger_conn, f, "resolved")
    assert (b.action, b.merge_id) == ("superseded", m3)
    assert finding_row(ledger_conn, f) == (True, SHA3, m3, "verified")


def test_resolved_after_still_true_without_a_new_touch_judges_no_merge(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Touch a.py")
    verify(ledger_conn, f, "still_true")
    a = verify(ledger_conn, f, "resolved", "fixed by hand", "agent-2")
    assert (a.action, a.merge_id) == ("superseded", None)
    assert finding_row(ledger_conn, f) == (True, "agent-2", None, "verified")


@pytest.mark.parametrize("mode", ["dry", "off"])
def test_a_scope_in_dry_or_off_mode_records_the_verdict_and_changes_nothing(
        ledger_conn: psycopg.Connection, mode: str) -> None:
    f = drift(ledger_conn)
    m1 = touch(ledger_conn, SHA1, "Touch a.py")
    fl.set_hygiene_mode(ledger_conn, "s", mode)
    a = verify(ledger_conn, f, "resolved")
    assert (a.action, a.rule, a.merge_id, a.detail["hygiene_mode"]) == ("would_supersede", "verified", m1, mode)
    assert finding_row(ledger_conn, f) == (False, None, None, None)
    b = verify(ledger_conn, f, "still_true")
    assert b.action == "verified_still_true"
    assert [x.id for x in fl.active_findings(ledger_conn, "s")] == [f]


def test_a_revert_of_the_judged_merge_reopens_the_finding(ledger_conn: psycopg.Connection) -> None:
    """The verdict supersedes by the merge it judged, like every merge-borne
    rule: reverting that merge undoes the resolution."""
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Touch a.py")
    verify(ledger_conn, f, "resolved")
    fl.record_merge(ledger_conn, "s", "beef" * 10, paths=["z.txt"],
                    message=f'Revert "Touch a.py"\n\nThis reverts commit {SHA1}.')
    assert [x.id for x in fl.active_findings(ledger_conn, "s")] == [f]
    assert [x.action for x in fl.read_audit(ledger_conn, "s", finding_id=f)][-1] == "reopened"


def test_a_dismissed_finding_is_refused_and_a_dismissal_overrides_a_verdict(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Touch a.py")
    verify(ledger_conn, f, "still_true")
    fl.dismiss_finding(ledger_conn, f, "wont_fix", "alice", "not in this release")
    before = counts(ledger_conn)
    for verdict in ("resolved", "still_true"):
        with pytest.raises(InvalidTransition, match=f"finding {f} is dismissed, not active"):
            verify(ledger_conn, f, verdict)
    assert counts(ledger_conn) == before
    # restored by a person, it takes verdicts again
    fl.restore_finding(ledger_conn, f, "alice", "back in scope")
    assert verify(ledger_conn, f, "resolved").action == "superseded"


def test_a_superseded_finding_is_refused(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Touch a.py")
    verify(ledger_conn, f, "resolved")
    before = counts(ledger_conn)
    with pytest.raises(InvalidTransition, match=f"finding {f} is superseded, not active.*verified by '{SHA1}'") as e:
        verify(ledger_conn, f, "still_true")
    assert e.value.sqlstate == "LD302"
    with pytest.raises(InvalidTransition):
        verify(ledger_conn, f, "resolved")
    assert counts(ledger_conn) == before


BAD = [
    # (finding id or None for the real one, verdict, evidence, verifier, error, message)
    (-1, "resolved", "e", "v", NotFound, "unknown finding: -1"),
    ("null", "resolved", "e", "v", ValueRequired, "finding_id is required"),
    (None, "maybe", "e", "v", ValueInvalid, "invalid verdict: 'maybe'"),
    (None, "resolved; DROP TABLE x", "e", "v", ValueInvalid, "invalid verdict: 'resolved; DROP TABLE x'"),
    (None, None, "e", "v", ValueRequired, "verdict is required"),
    (None, "  ", "e", "v", ValueRequired, "verdict is required"),
    (None, "resolved", None, "v", ValueRequired, "evidence is required"),
    (None, "resolved", " \n ", "v", ValueRequired, "evidence is required"),
    (None, "resolved", "e" * 10_001, "v", ValueTooLong, "invalid evidence: 10001 characters"),
    (None, "still_true", "e", None, ValueRequired, "verifier is required"),
    (None, "still_true", "e", "\t", ValueRequired, "verifier is required"),
    (None, "still_true", "e", "v" * 201, ValueTooLong, "invalid verifier: 201 characters"),
    (None, "still_true", "e", "agent\x1b[31m", ValueInvalid, "invalid verifier: .* control character"),
]


@pytest.mark.parametrize(("fid", "verdict", "evidence", "verifier", "error", "message"), BAD)
def test_bad_input_is_refused_and_writes_nothing(
        ledger_conn: psycopg.Connection, fid: Any, verdict: Any, evidence: Any, verifier: Any,
        error: type[Exception], message: str) -> None:
    f = drift(ledger_conn)
    touch(ledger_conn, SHA1, "Touch a.py")
    before = counts(ledger_conn)
    target = f if fid is None else (None if fid == "null" else fid)
    with pytest.raises(error, match=message):
        verify(ledger_conn, target, verdict, evidence, verifier)  # type: ignore[arg-type]
    assert counts(ledger_conn) == before
    assert finding_row(ledger_conn, f) == (False, None, None, None)


def test_evidence_may_span_lines_and_is_stored_trimmed(ledger_conn: psycopg.Connection) -> None:
    f = drift(ledger_conn)
    a = verify(ledger_conn, f, "still_true", "  a.py:88\n    app.register(night_shift)\n", " agent-7 ")
    assert (a.evidence, a.actor) == ("a.py:88\n    app.register(night_shift)", "agent-7")


def test_a_plain_sql_caller_gets_the_same_audit_row(ledger_conn: psycopg.Connection) -> None:
    """The function is the contract: a service (an MCP server) calls it in SQL and gets the audit row."""
    f = drift(ledger_conn)
    m1 = touch(ledger_conn, SHA1, "Touch a.py")
    with as_role(ledger_conn, "ledger_agent") as agent:
        row = agent.execute("SELECT (v).action, (v).merge_id, (v).actor FROM "
                            "(SELECT ledger.verify_finding(%s, 'resolved', 'gone', 'mcp') AS v) x", (f,)).fetchone()
    assert row == ("superseded", m1, "mcp")


def test_a_restore_stands_over_the_touches_before_it(ledger_conn: psycopg.Connection) -> None:
    """A person restored the finding after a verdict retired it: the touches before the restore were
    judged, the prompt lists none of them, and a later verdict judges only a later touch (here none:
    a resolved verdict then retires by the verifier, not by the old merge)."""
    f = drift(ledger_conn)
    m1 = touch(ledger_conn, SHA1, "Move night-shift into its own package")
    assert verify(ledger_conn, f, "resolved").merge_id == m1
    fl.restore_finding(ledger_conn, f, "alice", "night-shift is still registered in app.py")
    assert touches(ledger_conn, f) == []
    assert "possibly resolved" not in fl.read_prompt_text(ledger_conn, "s").prompt
    m2 = touch(ledger_conn, SHA2, "Drop the night-shift command")
    assert touches(ledger_conn, f) == [SHA2]
    assert verify(ledger_conn, f, "resolved").merge_id == m2
