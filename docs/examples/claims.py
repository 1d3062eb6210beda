"""The claim cycle of docs/claims.md from Python, with the hint the agent sees.

Run on a freshly migrated database: LEDGER_DSN=... .venv/bin/python docs/examples/claims.py
"""

import os

import psycopg

import findings_ledger as fl

with psycopg.connect(os.environ["LEDGER_DSN"], autocommit=True) as conn:
    issue = fl.add_issue(conn, "web", "Fix login", description="Users cannot log in",
                         assignee_type="agent", assignee_id="agent-a")
    for step in range(3):
        if step == 2:  # someone edits the description and moves the issue to review
            conn.execute("UPDATE ledger.issue SET description = 'Users cannot log in with SSO', "
                         "status = 'in_review' WHERE id = %s", (issue.id,))
        fl.enqueue_task(conn, issue.id, "agent-a", "rt-1")
        claim = fl.claim_task(conn, "rt-1")  # Claim | None
        assert claim is not None
        print(fl.render_claim_hint(claim))
        fl.start_task(conn, claim.task_id, session_id=claim.resume_session_id or "sess-1")
        fl.complete_task(conn, claim.task_id)
    # the resumed run never delivered: the hint says why nothing dates the context
    fl.enqueue_task(conn, issue.id, "agent-a", "rt-1")
    claim = fl.claim_task(conn, "rt-1")
    assert claim is not None
    fl.fail_task(conn, claim.task_id, "agent_crashed")
    fl.enqueue_task(conn, issue.id, "agent-a", "rt-1")
    claim = fl.claim_task(conn, "rt-1")
    assert claim is not None
    print(fl.render_claim_hint(claim))
