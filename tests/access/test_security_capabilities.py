"""Least privilege is also enough privilege: each role does its
whole job over claims, lifecycle and matching with exactly the grants of
sql/access/privileges.sql (tests/access/test_security_roles.py pins those grants and
lists what each role is refused). Every call here runs as the role (SET ROLE
on the test connection), through the Python API and plain SQL; the results
are checked as the owner."""

from __future__ import annotations

import psycopg
import pytest
from support.security import as_role, connect_as
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s")

SHA = "1234abcd" * 5


def test_writer_reports_re_reviews_imports_and_injects(ledger_conn: psycopg.Connection) -> None:
    with as_role(ledger_conn, "ledger_writer") as conn:
        first = fl.report_finding(conn, "s", "k1", "a.py is stale", paths=["src/a.py"], kind="drift")
        again = fl.report_finding(conn, "s", "k1", "a.py is stale")
        kept = fl.report_finding(conn, "s", "k2", "b.py is stale", paths=["src/b.py"], kind="drift")
        review = fl.replace_findings(conn, "s", "run-2", [{"finding_key": "k1", "title": "a.py is stale"}],
                                     kind="drift")
        imported = fl.import_finding(conn, "s", "imported", slug="2026-01-02-imported-note.md",
                                     strong_keywords=["E_IMPORT_1"], paths=["src/c.py"])
        refreshed = fl.import_finding(conn, "s", "imported, refreshed", slug="imported-note", paths=["src/c.py"])
        conn.execute("INSERT INTO ledger.finding (scope, title, slug, strong_keywords, tags, paths) "
                     "VALUES ('s', 'plain insert', 'plain-note', '{F-42}', '{t}', '{src/d.py}')")
        injected = fl.record_injection(conn, "session-1", [first.finding_id, kept.finding_id])
        injected_again = fl.record_injection(conn, "session-1", [first.finding_id])
        conn.execute("INSERT INTO ledger.injection (session_id, finding_id) VALUES ('session-2', %s) "
                     "ON CONFLICT DO NOTHING", (first.finding_id,))
        scope = fl.workspace_scope(conn, "/work/repo")
    assert (first.outcome, again.outcome, again.report_count) == ("new", "duplicate", 2)
    assert (review.kept, review.superseded) == (1, 1)
    assert (imported.status, refreshed.status, refreshed.id) == ("inserted", "updated", imported.id)
    assert (injected.recorded, injected_again.already_recorded) == (2, 1)
    assert scope == "-work-repo"
    rows = ledger_conn.execute("SELECT finding_key, state, supersede_rule FROM ledger.finding_lifecycle "
                               "WHERE finding_key IN ('k1', 'k2') ORDER BY 1").fetchall()
    assert rows == [("k1", "active", None), ("k2", "superseded", "rereview")]
    assert ledger_conn.execute("SELECT count(*) FROM ledger.injection").fetchone() == (3,)
    # the superseded one comes back when reported again, audited
    with as_role(ledger_conn, "ledger_writer") as conn:
        back = fl.report_finding(conn, "s", "k2", "b.py is stale", review_run="run-3")
    assert (back.outcome, back.state, back.reopen_count) == ("reopened", "active", 1)
    assert ledger_conn.execute("SELECT action, rule FROM ledger.supersession WHERE finding_id = %s ORDER BY id",
                               (kept.finding_id,)).fetchall() == [("superseded", "rereview"), ("reopened", "rereport")]


def test_writer_merges_and_reverts_with_plain_inserts(ledger_conn: psycopg.Connection) -> None:
    with as_role(ledger_conn, "ledger_writer") as conn:
        fid = conn.execute("INSERT INTO ledger.finding (scope, finding_key, title, kind, paths) "
                           "VALUES ('s', 'F-1', 'stale', 'drift', '{src/a.py}') RETURNING id").fetchone()[0]
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, branch) VALUES ('s', %s, '{src/a.py}', "
                     "'refs/heads/main')", (SHA,))
        assert conn.execute("SELECT superseded_at IS NOT NULL FROM ledger.finding WHERE id = %s", (fid,)).fetchone() \
            == (True,)
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('s', 'beef01', %s)",
                     (f'Revert "stale"\n\nThis reverts commit {SHA}.',))
        keyed = fl.record_merge(conn, "s", "beef02", message="Fixes F-1 for good", branch="main")
    assert ledger_conn.execute("SELECT action, rule FROM ledger.supersession WHERE finding_id = %s ORDER BY id",
                               (fid,)).fetchall() == [("superseded", "path"), ("reopened", "revert"),
                                                      ("superseded", "key")]
    assert keyed.superseded == [fid]
    assert ledger_conn.execute("SELECT DISTINCT branch FROM ledger.merge WHERE branch IS NOT NULL").fetchall() == [
        ("main",)]


def test_writer_files_issues_and_tasks_and_the_agent_runs_them(ledger_conn: psycopg.Connection) -> None:
    with as_role(ledger_conn, "ledger_writer") as conn:
        issue = fl.add_issue(conn, "s", "Fix the parser", description="body v1")
        conn.execute("INSERT INTO ledger.issue (scope, title, priority) VALUES ('s', 'second', 'high')")
        t1 = fl.enqueue_task(conn, issue.id, "agent-1", "rt-1")
        t2 = conn.execute("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (%s, 'agent-1', "
                          "'rt-1') RETURNING id", (issue.id,)).fetchone()[0]
        t3 = fl.enqueue_task(conn, issue.id, "agent-1", "rt-1")
    with as_role(ledger_conn, "ledger_agent") as conn:
        c1 = fl.claim_task(conn, "rt-1")
        assert c1 is not None and c1.task_id == t1.id
        fl.start_task(conn, t1.id, session_id="sess-1")
        fl.complete_task(conn, t1.id)
    # the writer edits the issue; the agent's next claim resumes sess-1 and sees the change
    with as_role(ledger_conn, "ledger_writer") as conn:
        conn.execute("UPDATE ledger.issue SET description = 'body v2', status = 'in_progress' WHERE id = %s",
                     (issue.id,))
    with as_role(ledger_conn, "ledger_agent") as conn:
        c2 = fl.claim_task(conn, "rt-1", agent_id="agent-1")
        assert c2 is not None and c2.task_id == t2
        assert (c2.resumed_task_id, c2.issue_changed_fields, c2.issue_status) == (t1.id, ["description"],
                                                                                  "in_progress")
        fl.requeue_task(conn, t2)
        c2b = fl.claim_task(conn, "rt-1")
        assert c2b is not None and (c2b.task_id, c2b.dispatch_count) == (t2, 2)
        fl.fail_task(conn, t2, "tool error")
        fl.cancel_task(conn, t3.id, reason="not needed")
        conn.execute("INSERT INTO ledger.retired_session (session_id, reason) VALUES ('sess-0', 'rotated')")
        seen = conn.execute("SELECT id, status FROM ledger.agent_task ORDER BY id").fetchall()
        assert fl.issue_snapshot(conn, "Fix the parser", "body v1")["v"] == 1
    assert seen == [(t1.id, "completed"), (t2, "failed"), (t3.id, "cancelled")]
    snapshots = ledger_conn.execute("SELECT id FROM ledger.agent_task WHERE issue_snapshot IS NOT NULL ORDER BY id")
    assert snapshots.fetchall() == [(t1.id,), (t2,)]


def test_reader_reads_history_lifecycle_and_listens(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    fid = fl.report_finding(ledger_conn, "s", "k1", "a.py is stale", paths=["src/a.py"], kind="drift").finding_id
    other = fl.report_finding(ledger_conn, "s", "k2", "still open", paths=["src/b.py"]).finding_id
    fl.record_injection(ledger_conn, "session-1", [fid, other])
    issue = fl.add_issue(ledger_conn, "s", "an issue")
    fl.enqueue_task(ledger_conn, issue.id, "agent-1", "rt-1")
    listener = connect_as(ledger_dsn, "ledger_reader")
    try:
        fl.listen_findings(listener)
        merge = fl.record_merge(ledger_conn, "s", "abcd", ["src/a.py"])
        events = list(fl.finding_events(listener, timeout=30, stop_after=1))
    finally:
        listener.close()
    assert [(e.finding_id, e.action, e.merge_id) for e in events] == [(fid, "superseded", merge.merge_id)]
    with as_role(ledger_conn, "ledger_reader") as conn:
        assert fl.read_finding(conn, fid).state == "superseded"
        assert [h.event for h in fl.read_history(conn, fid)] == ["reported", "injected", "superseded"]
        assert sorted(i.finding_id for i in fl.read_injections(conn, session_id="session-1")) == [fid, other]
        assert fl.measure_convergence(conn, "session-1").still_active == 1
        assert fl.read_prompt_findings(conn, "s").included_count == 1
        assert [f.id for f in fl.active_findings(conn, "s")] == [other]
        assert conn.execute("SELECT count(*) FROM ledger.finding_lifecycle").fetchone() == (2,)
        assert conn.execute("SELECT count(*) FROM ledger.agent_task JOIN ledger.issue i ON i.id = issue_id")\
            .fetchone() == (1,)
        assert fl.issue_snapshot(conn, "t", None)["v"] == 1


def test_admin_sets_policy_dismisses_restores_and_reconciles(ledger_conn: psycopg.Connection) -> None:
    fid = fl.report_finding(ledger_conn, "s", "k1", "a.py is stale", paths=["src/a.py"]).finding_id
    with as_role(ledger_conn, "ledger_admin") as conn:
        policy = fl.set_match_policy(conn, "s", path_supersede_kinds=["*"], default_branch="main")
        conn.execute("UPDATE ledger.scope SET slug_mention_resolves = true WHERE scope = 's'")
        dismissed = fl.dismiss_finding(conn, fid, "wont-fix", "alice", "not worth it")
        restored = fl.restore_finding(conn, fid, "alice", "changed my mind")
        conn.execute("INSERT INTO ledger.poisoned_failure_reason (failure_reason, note) VALUES ('quota', 'x')")
        conn.execute("UPDATE ledger.poisoned_failure_reason SET note = 'out of quota' WHERE failure_reason = 'quota'")
        conn.execute("DELETE FROM ledger.poisoned_failure_reason WHERE failure_reason = 'quota'")
        conn.execute("INSERT INTO ledger.retired_session (session_id) VALUES ('old')")
        conn.execute("DELETE FROM ledger.retired_session WHERE session_id = 'old'")
        assert fl.set_hygiene_mode(conn, "s", "dry") == "dry"
        assert fl.reconcile(conn, "s") == []
        history = [h.event for h in fl.read_history(conn, fid)]
    assert (policy.path_supersede_kinds, policy.default_branch) == (["*"], "main")
    assert (dismissed.state, dismissed.resolution, restored.state) == ("dismissed", "wont_fix", "active")
    assert history == ["reported", "dismissed", "restored"]
    assert ledger_conn.execute("SELECT slug_mention_resolves FROM ledger.scope").fetchone() == (True,)


@pytest.mark.parametrize(("role", "statement"), [
    ("ledger_agent", "UPDATE ledger.agent_task SET issue_snapshot = '{\"v\": 1}'"),
    ("ledger_agent", "SELECT set_config('ledger.claim_writer', '1', false); "
                     "UPDATE ledger.agent_task SET status = 'dispatched', dispatch_count = 9"),
    ("ledger_writer", "SELECT set_config('ledger.claim_writer', '1', false); "
                      "UPDATE ledger.agent_task SET issue_snapshot = '{\"v\": 1}'"),
    ("ledger_admin", "SELECT set_config('ledger.claim_writer', '1', false); "
                     "UPDATE ledger.agent_task SET issue_snapshot = '{\"v\": 1}'"),
])
def test_nobody_but_the_claim_writes_a_snapshot_even_with_the_guard_flag(
        ledger_conn: psycopg.Connection, role: str, statement: str) -> None:
    """The _200_guard_snapshot flag is a guard against mistakes; privileges
    are the wall: a role that raises the flag itself still may not write
    issue_snapshot or dispatch a task."""
    issue = fl.add_issue(ledger_conn, "s", "t")
    fl.enqueue_task(ledger_conn, issue.id, "a", "rt")
    with as_role(ledger_conn, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert ledger_conn.execute("SELECT status, dispatch_count, issue_snapshot FROM ledger.agent_task").fetchall() == [
        ("queued", 0, None)]
