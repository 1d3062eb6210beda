"""Replay of the issue-snapshot design's measurement: why status is not in the compared set.

The design replayed one issue's 21 follow-up runs: comparing title and
description, 17 read "unchanged"; with status added to the compared set only
4 did, because the agent's own bookkeeping (in_progress when it starts,
in_review when it delivers) came back the next turn as "changed: status".

The design gives only the counts; this timeline is ours, built to reproduce
them (docs/claims.md walks through it). Run 1 claims the issue in `todo`;
before each follow-up the reviewer either comments (status left at the
agent's in_review) or reopens (moves it back to todo, then comments), and
four times also edits the body. Every run resumes the same session and
delivers, so each follow-up anchors on the run before it.

The title+description result is the real ledger.claim_task output. The
"status added" variant is test-only: at every claim the test records a
snapshot extended with a status hash and compares it for the same anchor the
claim chose.
"""

from __future__ import annotations

import psycopg
from support.claims import new_issue

import findings_ledger as fl

# Before follow-up k (k = 2..22): the reviewer's action and an optional body edit.
FOLLOW_UPS: list[tuple[str, tuple[str, str] | None]] = [
    ("comment", None),                                              # 2
    ("reopen", None),                                               # 3
    ("comment", None),                                              # 4
    ("reopen", ("description", "Login fails for SSO users only")),  # 5
    ("comment", None),                                              # 6
    ("comment", None),                                              # 7
    ("reopen", None),                                               # 8
    ("comment", ("description", "Login fails for SSO users on Safari")),  # 9
    ("reopen", None),                                               # 10
    ("reopen", None),                                               # 11
    ("comment", None),                                              # 12
    ("reopen", ("title", "Fix SSO login on Safari")),               # 13
    ("comment", None),                                              # 14
    ("comment", None),                                              # 15
    ("reopen", None),                                               # 16
    ("comment", None),                                              # 17
    ("reopen", ("description", "Login fails for SSO users on Safari 17+")),  # 18
    ("comment", None),                                              # 19
    ("comment", None),                                              # 20
    ("reopen", None),                                               # 21
    ("comment", None),                                              # 22
]

# Test-only: the snapshot with status added, as the design's earlier shape had it.
SEEN_WITH_STATUS = """
INSERT INTO replay_seen (task_id, snapshot)
SELECT %(task_id)s, ledger.issue_snapshot(i.title, i.description)
       || jsonb_build_object('status_sha256', encode(sha256(convert_to(i.status, 'UTF8')), 'hex'))
  FROM ledger.issue i WHERE i.id = %(issue_id)s
"""
COMPARED_WITH_STATUS = ("title_sha256", "description_sha256", "status_sha256")


def agent_run(conn: psycopg.Connection, issue: int) -> fl.Claim:
    """One run: claim, record what the claim saw, start, set in_progress,
    deliver (in_review), complete."""
    fl.enqueue_task(conn, issue, "agent-a", "rt-1")
    claim = fl.claim_task(conn, "rt-1")
    assert claim is not None
    conn.execute(SEEN_WITH_STATUS, {"task_id": claim.task_id, "issue_id": issue})
    fl.start_task(conn, claim.task_id, session_id=claim.resume_session_id or "sess-replay")
    conn.execute("UPDATE ledger.issue SET status = 'in_progress' WHERE id = %s", (issue,))
    conn.execute("UPDATE ledger.issue SET status = 'in_review' WHERE id = %s", (issue,))
    fl.complete_task(conn, claim.task_id)
    return claim


def changed_with_status(conn: psycopg.Connection, anchor: int, task: int) -> list[str]:
    rows = dict(conn.execute("SELECT task_id, snapshot FROM replay_seen WHERE task_id IN (%s, %s)",
                             (anchor, task)).fetchall())
    return [k for k in COMPARED_WITH_STATUS if rows[anchor][k] != rows[task][k]]


def test_replaying_21_follow_ups_reproduces_17_unchanged_and_4_with_status(ledger_conn: psycopg.Connection) -> None:
    conn = ledger_conn
    conn.execute("CREATE TABLE replay_seen (task_id bigint PRIMARY KEY, snapshot jsonb NOT NULL)")
    issue = new_issue(conn, title="Fix login", description="Login fails", status="todo")
    previous = agent_run(conn, issue)
    assert previous.delta_basis == "nothing_resumed"

    unchanged = unchanged_with_status = 0
    for k, (action, body_edit) in enumerate(FOLLOW_UPS, start=2):
        if action == "reopen":
            conn.execute("UPDATE ledger.issue SET status = 'todo' WHERE id = %s", (issue,))
        if body_edit is not None:
            field, text = body_edit
            conn.execute(f"UPDATE ledger.issue SET {field} = %s WHERE id = %s", (text, issue))
        claim = agent_run(conn, issue)

        # Every follow-up resumes the previous run's session, which delivered.
        assert (claim.anchor_task_id, claim.resume_session_id) == (previous.task_id, "sess-replay"), k
        assert claim.issue_state_delta_known is True, k
        assert claim.issue_changed_fields == ([] if body_edit is None else [body_edit[0]]), k
        assert claim.issue_status == ("todo" if action == "reopen" else "in_review"), k
        unchanged += claim.issue_changed_fields == []
        unchanged_with_status += changed_with_status(conn, claim.anchor_task_id, claim.task_id) == []
        previous = claim

    assert len(FOLLOW_UPS) == 21
    assert unchanged == 17
    assert unchanged_with_status == 4
