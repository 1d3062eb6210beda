"""Task claims (the issue-snapshot rules): the delta a resumed agent is told, the
anchor rules, the snapshot's single writer and the task machine, against the
real database. Tests are named after the scenarios of the issue."""

from __future__ import annotations

import re
import unicodedata

import psycopg
import pytest
from psycopg.types.json import Jsonb
from support.claims import follow_up, import_snapshot, new_issue, run, sha, snapshot_of

import findings_ledger as fl

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


#: the row a claim of the stored task would resume (what claim_task asks ledger._resumed_row)
RESUMED = ("SELECT (ledger._resumed_row(t.id, t.issue_id, t.agent_id, t.runtime_id, t.rerun_of_task_id, "
           "t.force_fresh_session)).id FROM ledger.agent_task t WHERE t.id = %s")


def edit(conn: psycopg.Connection, issue_id: int, **values: str | None) -> None:
    for column, value in values.items():
        assert column in ("title", "description", "status", "priority", "assignee_type", "assignee_id")
        conn.execute(f"UPDATE ledger.issue SET {column} = %s WHERE id = %s", (value, issue_id))


# --- the delta -------------------------------------------------------------


def test_unchanged_issue_gives_a_known_empty_delta(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    first, _ = run(ledger_conn, issue)
    claim = follow_up(ledger_conn, issue)
    assert claim.issue_state_delta_known is True
    assert claim.issue_changed_fields == []
    assert claim.delta_basis == "compared"
    assert claim.anchor_task_id == first
    assert claim.resumed_task_id == first
    assert claim.resume_session_id == "sess-1"


def test_a_description_edit_names_only_description(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue)
    edit(ledger_conn, issue, description="Users cannot log in with SSO")
    claim = follow_up(ledger_conn, issue)
    assert claim.issue_state_delta_known is True
    assert claim.issue_changed_fields == ["description"]


def test_a_title_edit_names_only_title_and_both_come_in_fixed_order(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue)
    edit(ledger_conn, issue, title="Fix SSO login")
    claim = follow_up(ledger_conn, issue)
    assert claim.issue_changed_fields == ["title"]
    fl.start_task(ledger_conn, claim.task_id)
    fl.complete_task(ledger_conn, claim.task_id)
    edit(ledger_conn, issue, description="new body", title="Fix SSO login (again)")
    assert follow_up(ledger_conn, issue).issue_changed_fields == ["title", "description"]


def test_no_earlier_run_is_unknown(ledger_conn: psycopg.Connection) -> None:
    claim = follow_up(ledger_conn, new_issue(ledger_conn))
    assert claim.issue_state_delta_known is False
    assert claim.issue_changed_fields is None
    assert claim.delta_basis == "nothing_resumed"
    assert (claim.resumed_task_id, claim.anchor_task_id, claim.resume_session_id) == (None, None, None)


def test_an_earlier_run_with_a_null_snapshot_is_unknown(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    first, _ = run(ledger_conn, issue)
    import_snapshot(ledger_conn, first, None)  # a row written before the column existed
    claim = follow_up(ledger_conn, issue)
    assert claim.anchor_task_id == first
    assert claim.issue_state_delta_known is False
    assert claim.issue_changed_fields is None
    assert claim.delta_basis == "no_snapshot"


def test_a_foreign_version_is_unknown(ledger_conn: psycopg.Connection) -> None:
    for version in (2, 3, 0, 1.5):
        issue = new_issue(ledger_conn)
        first, _ = run(ledger_conn, issue)
        good = snapshot_of(ledger_conn, first)
        import_snapshot(ledger_conn, first, {**good, "v": version})  # same hashes, another version
        claim = follow_up(ledger_conn, issue)
        assert (claim.issue_state_delta_known, claim.issue_changed_fields, claim.delta_basis) == (
            False, None, "not_comparable"), version


BROKEN = [
    "a string",
    [1, "x"],
    {"v": "1", "title_sha256": sha("Fix login"), "description_sha256": sha("Users cannot log in")},
    {"v": 1, "title_sha256": sha("Fix login")},
    {"v": 1, "title_sha256": sha("Fix login"), "description_sha256": None},
    {"v": 1, "title_sha256": "Fix login", "description_sha256": sha("Users cannot log in")},
    {"v": 1, "title_sha256": sha("Fix login").upper(), "description_sha256": sha("Users cannot log in")},
    {"title_sha256": sha("Fix login"), "description_sha256": sha("Users cannot log in")},
]


def test_a_snapshot_that_does_not_parse_is_unknown(ledger_conn: psycopg.Connection) -> None:
    for broken in BROKEN:
        issue = new_issue(ledger_conn)
        first, _ = run(ledger_conn, issue)
        import_snapshot(ledger_conn, first, broken)
        claim = follow_up(ledger_conn, issue)
        assert (claim.issue_state_delta_known, claim.issue_changed_fields, claim.delta_basis) == (
            False, None, "not_comparable"), broken


def test_the_claim_records_its_own_snapshot_hashes_never_text(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, title="Secret title", description="Confidential body")
    task, claim = run(ledger_conn, issue, outcome="dispatched")
    assert snapshot_of(ledger_conn, task) == {
        "v": 1, "title_sha256": sha("Secret title"), "description_sha256": sha("Confidential body")}
    sql = "SELECT issue_snapshot::text FROM ledger.agent_task WHERE id = %s"
    text = ledger_conn.execute(sql, (task,)).fetchone()[0]
    assert "Secret" not in text and "Confidential" not in text


# --- which earlier row is the anchor ------------------------------------------


def test_a_newer_poisoned_run_is_skipped_and_the_older_healthy_session_is_the_anchor(
    ledger_conn: psycopg.Connection,
) -> None:
    issue = new_issue(ledger_conn)
    healthy, _ = run(ledger_conn, issue, session="sess-healthy")
    edit(ledger_conn, issue, description="Users cannot log in with SSO")
    # A newer session sees the edited body and delivers once, then is poisoned.
    newer, _ = run(ledger_conn, issue, session="sess-newer", force_fresh=True)
    poisoned, claim = run(ledger_conn, issue, session="sess-newer", outcome="failed", reason="context_window_exceeded")
    assert claim.anchor_task_id == newer  # before the poisoning, the newer session was resumed
    claim = follow_up(ledger_conn, issue)
    assert claim.resume_session_id == "sess-healthy"
    assert claim.resumed_task_id == claim.anchor_task_id == healthy
    # The healthy session's memory predates the edit. Anchoring on the newer
    # session's delivered run would have reported "unchanged".
    assert claim.issue_state_delta_known is True
    assert claim.issue_changed_fields == ["description"]


def test_poisoned_failure_reasons_are_configurable(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    healthy, _ = run(ledger_conn, issue, session="sess-healthy")
    failed, _ = run(ledger_conn, issue, session="sess-other", force_fresh=True, outcome="failed", reason="oom_killed")
    queued = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1").id
    resumed = RESUMED
    assert ledger_conn.execute(resumed, (queued,)).fetchone() == (failed,)
    ledger_conn.execute("INSERT INTO ledger.poisoned_failure_reason (failure_reason) VALUES ('oom_killed')")
    assert ledger_conn.execute(resumed, (queued,)).fetchone() == (healthy,)


def test_a_retired_session_is_skipped(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    healthy, _ = run(ledger_conn, issue, session="sess-healthy")
    edit(ledger_conn, issue, description="Users cannot log in with SSO")
    run(ledger_conn, issue, session="sess-rotated", force_fresh=True)
    ledger_conn.execute("INSERT INTO ledger.retired_session (session_id, reason) VALUES ('sess-rotated', 'rotated')")
    claim = follow_up(ledger_conn, issue)
    assert (claim.resume_session_id, claim.anchor_task_id) == ("sess-healthy", healthy)
    assert claim.issue_changed_fields == ["description"]


def test_a_manual_rerun_of_an_older_run_anchors_on_that_run(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    older, _ = run(ledger_conn, issue, session="sess-older")
    edit(ledger_conn, issue, description="Users cannot log in with SSO")
    newer, _ = run(ledger_conn, issue, session="sess-newer", force_fresh=True)
    # Without the rerun, the newest session (which saw the edit) would be resumed.
    plain = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1").id
    assert ledger_conn.execute(RESUMED, (plain,)).fetchone() == (newer,)
    fl.cancel_task(ledger_conn, plain)
    claim = follow_up(ledger_conn, issue, rerun_of=older)
    assert claim.rerun_of_task_id == older
    assert (claim.resume_session_id, claim.anchor_task_id) == ("sess-older", older)
    assert claim.issue_changed_fields == ["description"]


@pytest.mark.parametrize("other", ["agent", "runtime", "issue"])
def test_a_manual_rerun_of_another_agents_runtimes_or_issues_run_has_no_anchor(
    ledger_conn: psycopg.Connection, other: str
) -> None:
    issue = new_issue(ledger_conn)
    other_issue = new_issue(ledger_conn, title="Another issue")
    source, _ = run(ledger_conn, other_issue if other == "issue" else issue,
                    agent="agent-b" if other == "agent" else "agent-a",
                    runtime="rt-2" if other == "runtime" else "rt-1")
    run(ledger_conn, issue, session="sess-mine")  # a perfectly good session, NOT used as a fallback
    claim = follow_up(ledger_conn, issue, rerun_of=source)
    assert (claim.resumed_task_id, claim.anchor_task_id, claim.resume_session_id) == (None, None, None)
    assert (claim.issue_state_delta_known, claim.delta_basis) == (False, "nothing_resumed")


def test_a_never_started_retry_is_no_anchor(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue, session="sess-1")
    retry, claim = run(ledger_conn, issue, outcome="never_started", reason="runtime_offline")
    assert claim.resume_session_id == "sess-1"  # the retry resumed the session, then never started
    claim = follow_up(ledger_conn, issue)
    assert claim.resume_session_id == "sess-1"  # it hands back its session...
    assert claim.resumed_task_id == retry
    assert claim.anchor_task_id is None  # ...but dates no delta
    assert (claim.issue_state_delta_known, claim.issue_changed_fields, claim.delta_basis) == (
        False, None, "not_delivered")


def test_a_started_run_whose_work_never_launched_failed_is_no_anchor(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue, session="sess-1")
    failed, _ = run(ledger_conn, issue, session="sess-1", outcome="failed", reason="agent_crashed")
    claim = follow_up(ledger_conn, issue)
    assert (claim.resumed_task_id, claim.resume_session_id, claim.anchor_task_id) == (failed, "sess-1", None)
    assert (claim.issue_state_delta_known, claim.delta_basis) == (False, "not_delivered")


def test_a_cancelled_run_is_no_anchor(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue, session="sess-1")
    task, _ = run(ledger_conn, issue, session="sess-1", outcome="dispatched")
    fl.start_task(ledger_conn, task)
    fl.cancel_task(ledger_conn, task)
    claim = follow_up(ledger_conn, issue)
    assert (claim.resumed_task_id, claim.anchor_task_id, claim.delta_basis) == (task, None, "not_delivered")


def test_a_force_fresh_claim_has_no_delta(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue)
    claim = follow_up(ledger_conn, issue, force_fresh=True)
    assert (claim.resume_session_id, claim.resumed_task_id, claim.anchor_task_id) == (None, None, None)
    assert (claim.issue_state_delta_known, claim.issue_changed_fields, claim.delta_basis) == (
        False, None, "fresh_session")
    assert ledger_conn.execute("SELECT session_id FROM ledger.agent_task WHERE id = %s",
                               (claim.task_id,)).fetchone() == (None,)


def test_a_claim_on_a_different_runtime_has_no_delta(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    run(ledger_conn, issue, runtime="rt-1")
    claim = follow_up(ledger_conn, issue, runtime="rt-2")
    assert claim.runtime_id == "rt-2"
    assert (claim.resume_session_id, claim.anchor_task_id) == (None, None)
    assert (claim.issue_state_delta_known, claim.delta_basis) == (False, "nothing_resumed")


def test_status_assignee_and_priority_changes_do_not_count_but_their_new_values_are_returned(
    ledger_conn: psycopg.Connection,
) -> None:
    issue = new_issue(ledger_conn, status="todo", priority="low")
    run(ledger_conn, issue)
    ledger_conn.execute(
        "UPDATE ledger.issue SET status = 'in_review', priority = 'urgent', assignee_type = 'member', "
        "assignee_id = 'alice' WHERE id = %s", (issue,))
    claim = follow_up(ledger_conn, issue)
    assert (claim.issue_state_delta_known, claim.issue_changed_fields) == (True, [])
    # The new values ship (proving the UPDATE applied, so the empty delta means something).
    assert (claim.issue_status, claim.issue_priority, claim.issue_assignee_type, claim.issue_assignee_id) == (
        "in_review", "urgent", "member", "alice")


def test_every_claim_returns_the_current_status_and_assignee(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, status="backlog", assignee_type="agent", assignee_id="agent-a")
    claim = follow_up(ledger_conn, issue)  # nothing resumed: still shipped
    assert (claim.issue_status, claim.issue_assignee_type, claim.issue_assignee_id, claim.issue_priority) == (
        "backlog", "agent", "agent-a", "none")


# --- legacy rows and versions ---------------------------------------------------


def legacy(title: str, description: str, status: str) -> dict[str, object]:
    """A row in the design's earlier shape: it still carried a "status" key."""
    return {"v": 1, "title_sha256": sha(title), "description_sha256": sha(description), "status": status}


def test_a_legacy_row_with_a_status_key_compares_unchanged(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, status="in_review")
    first, _ = run(ledger_conn, issue)
    import_snapshot(ledger_conn, first, legacy("Fix login", "Users cannot log in", "in_progress"))
    claim = follow_up(ledger_conn, issue)
    assert (claim.issue_state_delta_known, claim.issue_changed_fields) == (True, [])


def test_a_legacy_row_with_a_status_key_compares_changed(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, status="in_review")
    first, _ = run(ledger_conn, issue)
    import_snapshot(ledger_conn, first, legacy("Fix login", "Users cannot log in (old text)", "in_review"))
    claim = follow_up(ledger_conn, issue)
    assert (claim.issue_state_delta_known, claim.issue_changed_fields) == (True, ["description"])


def test_version_2_reads_line_endings_and_nfc_differences_as_unchanged(ledger_dsn: str) -> None:
    nfd, nfc = "Cafe\u0301 menu", "Caf\u00e9 menu"
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        conn.execute("SET ledger.snapshot_version = 2")
        issue = new_issue(conn, title=nfd, description="line one\r\nline two\r\n")
        first, _ = run(conn, issue)
        assert snapshot_of(conn, first)["v"] == 2
        edit(conn, issue, title=nfc, description="line one\nline two\n")
        claim = follow_up(conn, issue)
        assert (claim.issue_state_delta_known, claim.issue_changed_fields) == (True, [])
        # A real edit still shows.
        fl.start_task(conn, claim.task_id)
        fl.complete_task(conn, claim.task_id)
        edit(conn, issue, description="line one\nline three\n")
        assert follow_up(conn, issue).issue_changed_fields == ["description"]


def test_version_1_reads_the_same_edits_as_changed(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn, title="Cafe\u0301 menu", description="line one\r\nline two\r\n")
    run(ledger_conn, issue)
    edit(ledger_conn, issue, title="Caf\u00e9 menu", description="line one\nline two\n")
    assert follow_up(ledger_conn, issue).issue_changed_fields == ["title", "description"]


def test_version_1_rows_are_not_compared_under_version_2(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        issue = new_issue(conn)
        run(conn, issue)  # written under version 1
        conn.execute("SET ledger.snapshot_version = 2")
        claim = follow_up(conn, issue)
        assert (claim.issue_state_delta_known, claim.issue_changed_fields, claim.delta_basis) == (
            False, None, "not_comparable")
        assert snapshot_of(conn, claim.task_id)["v"] == 2


def test_version_2_is_selected_per_database_with_alter_database(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("ALTER DATABASE {} SET ledger.snapshot_version = 2").format(
            psycopg.sql.Identifier(conn.info.dbname)))
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:  # new sessions pick it up
        assert conn.execute("SELECT ledger.issue_snapshot('t', NULL)").fetchone()[0]["v"] == 2
        issue = new_issue(conn)
        task, _ = run(conn, issue, outcome="dispatched")
        assert snapshot_of(conn, task)["v"] == 2


def test_an_invalid_snapshot_version_setting_is_rejected_before_anything_is_written(
    ledger_conn: psycopg.Connection,
) -> None:
    issue = new_issue(ledger_conn)
    task = fl.enqueue_task(ledger_conn, issue, "agent-a", "rt-1").id
    for value in ("3", "two", "1.5"):
        ledger_conn.execute("SELECT set_config('ledger.snapshot_version', %s, false)", (value,))
        with pytest.raises(fl.ValueInvalid) as info:
            fl.claim_task(ledger_conn, "rt-1")
        assert "ledger.snapshot_version" in str(info.value)
    ledger_conn.execute("RESET ledger.snapshot_version")
    assert ledger_conn.execute("SELECT status, dispatch_count FROM ledger.agent_task WHERE id = %s",
                               (task,)).fetchone() == ("queued", 0)


# --- the single writer ----------------------------------------------------------


def test_a_stale_dispatch_never_overwrites_the_snapshot(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    task, _ = run(ledger_conn, issue, outcome="dispatched")
    fl.requeue_task(ledger_conn, task)
    edit(ledger_conn, issue, description="edited between the two dispatches")
    claim = fl.claim_task(ledger_conn, "rt-1")
    assert claim is not None and (claim.task_id, claim.dispatch_count) == (task, 2)
    current = snapshot_of(ledger_conn, task)
    edit(ledger_conn, issue, description="edited after the second claim")
    assert snapshot_of(ledger_conn, task) == current


def test_a_reclaim_writes_the_newer_view(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    task, first = run(ledger_conn, issue, outcome="dispatched")
    assert snapshot_of(ledger_conn, task)["description_sha256"] == sha("Users cannot log in")
    fl.requeue_task(ledger_conn, task)
    edit(ledger_conn, issue, description="edited while the task waited")
    again = fl.claim_task(ledger_conn, "rt-1")
    assert again is not None and again.task_id == task
    assert again.dispatch_count == first.dispatch_count + 1
    assert snapshot_of(ledger_conn, task)["description_sha256"] == sha("edited while the task waited")


def test_a_direct_update_of_issue_snapshot_is_rejected(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    task, _ = run(ledger_conn, issue)
    before = snapshot_of(ledger_conn, task)
    for value in (None, {"v": 1, "title_sha256": sha("x"), "description_sha256": sha("y")}):
        with pytest.raises(psycopg.Error) as info:
            ledger_conn.execute("UPDATE ledger.agent_task SET issue_snapshot = %s WHERE id = %s",
                                (None if value is None else Jsonb(value), task))
        assert info.value.sqlstate == "LD203"
    assert snapshot_of(ledger_conn, task) == before


def test_the_claim_flag_of_one_task_does_not_open_another(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    task, _ = run(ledger_conn, issue)
    with pytest.raises(psycopg.Error) as info, ledger_conn.transaction():
        ledger_conn.execute("SELECT set_config('ledger.claim_writer', %s, true)", (str(task + 1),))
        ledger_conn.execute("UPDATE ledger.agent_task SET issue_snapshot = NULL WHERE id = %s", (task,))
    assert info.value.sqlstate == "LD203"


def test_a_new_task_cannot_carry_a_snapshot(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute(
            "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, issue_snapshot) VALUES (%s, 'a', 'r', %s)",
            (issue, Jsonb({"v": 1, "title_sha256": sha("x"), "description_sha256": sha("y")})))
    assert info.value.sqlstate == "LD203"
    assert ledger_conn.execute("SELECT count(*) FROM ledger.agent_task").fetchone() == (0,)


def test_the_python_api_raises_snapshot_write_rejected(ledger_conn: psycopg.Connection) -> None:
    issue = new_issue(ledger_conn)
    task, _ = run(ledger_conn, issue)
    from findings_ledger.errors import translate

    with pytest.raises(fl.SnapshotWriteRejected), translate():
        ledger_conn.execute("UPDATE ledger.agent_task SET issue_snapshot = NULL WHERE id = %s", (task,))


def test_the_snapshot_column_holds_hashes_only(ledger_conn: psycopg.Connection) -> None:
    texts = [("Plain title", "Plain body"), ("C:\\temp", "\\x41"), ("🚀 launch", None), ("Cafe\u0301", "")]
    for title, description in texts:
        issue = new_issue(ledger_conn, title=title, description=description)
        run(ledger_conn, issue)
        follow_up(ledger_conn, issue)
    rows = ledger_conn.execute(
        "SELECT t.issue_snapshot, t.issue_snapshot::text, i.title, i.description "
        "FROM ledger.agent_task t JOIN ledger.issue i ON i.id = t.issue_id").fetchall()
    assert len(rows) == 2 * len(texts)
    for snapshot, rendered, title, description in rows:
        assert set(snapshot) == {"v", "title_sha256", "description_sha256"}
        assert snapshot["v"] == 1
        assert re.fullmatch("[0-9a-f]{64}", snapshot["title_sha256"])
        assert re.fullmatch("[0-9a-f]{64}", snapshot["description_sha256"])
        assert snapshot["title_sha256"] == sha(title)
        assert snapshot["description_sha256"] == sha(description or "")
        assert title not in rendered
        assert not description or description not in rendered


# --- the snapshot function: test vectors computed with hashlib ------------------

VECTORS = [
    "",
    "Fix login",
    "C:\\temp",
    "\\x41",
    "\\n is not a newline, \\\\ is two backslashes",
    "emoji 🚀👩‍💻 and a flag 🇫🇷",
    "combining: e\u0301 a\u0308 n\u0303",
    "precomposed: \u00e9 \u00e4 \u00f1",
    "tab\tand CRLF\r\nand LF\n",
    "日本語のタイトル",
    "quote ' and \" and %s and :name and $$",
]


def test_version_1_hashes_the_exact_utf8_bytes(ledger_conn: psycopg.Connection) -> None:
    for text in VECTORS:
        got = ledger_conn.execute("SELECT ledger.issue_snapshot(%s, %s)", (text, text + "!")).fetchone()[0]
        assert got == {"v": 1, "title_sha256": sha(text), "description_sha256": sha(text + "!")}, text


def test_the_empty_string_gives_the_known_vector_and_null_hashes_like_it(ledger_conn: psycopg.Connection) -> None:
    got = ledger_conn.execute("SELECT ledger.issue_snapshot('', NULL)").fetchone()[0]
    assert got == {"v": 1, "title_sha256": EMPTY_SHA256, "description_sha256": EMPTY_SHA256}


def test_backslashes_in_sql_literals_are_not_parsed_as_escapes(ledger_conn: psycopg.Connection) -> None:
    got = ledger_conn.execute(r"SELECT ledger.issue_snapshot('C:\temp', '\x41')").fetchone()[0]
    assert got["title_sha256"] == sha("C:\\temp")
    assert got["description_sha256"] == sha("\\x41") != sha("A")


def test_version_2_hashes_after_crlf_to_lf_and_nfc(ledger_conn: psycopg.Connection) -> None:
    for text in VECTORS:
        got = ledger_conn.execute("SELECT ledger.issue_snapshot(%s, %s, 2)", (text, None)).fetchone()[0]
        expected = sha(unicodedata.normalize("NFC", text.replace("\r\n", "\n")))
        assert got == {"v": 2, "title_sha256": expected, "description_sha256": sha("")}, text


def test_nfc_and_nfd_differ_under_version_1_and_match_under_version_2(ledger_conn: psycopg.Connection) -> None:
    nfc, nfd = "r\u00e9sum\u00e9 \u00c5", "re\u0301sume\u0301 A\u030a"
    v1 = ledger_conn.execute("SELECT ledger.issue_snapshot(%s, NULL, 1), ledger.issue_snapshot(%s, NULL, 1)",
                             (nfc, nfd)).fetchone()
    v2 = ledger_conn.execute("SELECT ledger.issue_snapshot(%s, NULL, 2), ledger.issue_snapshot(%s, NULL, 2)",
                             (nfc, nfd)).fetchone()
    assert v1[0]["title_sha256"] == sha(nfc) != v1[1]["title_sha256"] == sha(nfd)
    assert v2[0] == v2[1]
    assert v2[0]["title_sha256"] == sha(nfc)


def test_an_unknown_snapshot_version_is_rejected(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.ValueInvalid):
        fl.issue_snapshot(ledger_conn, "t", "d", version=3)
    assert fl.issue_snapshot(ledger_conn, "t", None) == {"v": 1, "title_sha256": sha("t"),
                                                         "description_sha256": EMPTY_SHA256}
