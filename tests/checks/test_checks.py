"""A finding's check (ledger.finding.resolved_when): validation on write for
every writer, the paths it adds, and what a merge decides for a checked
finding (never a touch; a file-state request; the parts its added/deleted
decide in SQL; messages; causality; observed_at_precision day)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

import findings_ledger as fl
from findings_ledger.errors import PathRejected, ValueInvalid, ValueTooLong

CONTAINS = {"file_contains": {"path": "./src/app.py", "pattern": "def night_shift"}}
OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)


def checked(conn: psycopg.Connection[Any], check: dict[str, Any], *, scope: str = "s", key: str = "F1",
            paths: tuple[str, ...] = (), **kw: Any) -> fl.models.Finding:
    return fl.add_finding(conn, scope, f"{key} is not fixed", paths=paths, kind="drift", finding_key=key,
                          resolved_when=check, observed_at=kw.pop("observed_at", OLD), **kw)


def audit(conn: psycopg.Connection[Any], finding_id: int) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT merge_id, action, rule, evidence FROM ledger.supersession "
                        "WHERE finding_id = %s ORDER BY id", (finding_id,)).fetchall()


def state(conn: psycopg.Connection[Any], finding_id: int) -> tuple[Any, ...]:
    return conn.execute("SELECT superseded_at IS NOT NULL, superseded_by_merge_id, supersede_rule "
                        "FROM ledger.finding WHERE id = %s", (finding_id,)).fetchone()


# --- validation ------------------------------------------------------------------------------------


def test_a_check_is_normalised_and_its_paths_join_the_findings_paths(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, {"all": [CONTAINS, {"path_absent": "pkg//old/"}]}, paths=("README.md",))
    assert f.resolved_when == {"all": [{"file_contains": {"path": "src/app.py", "pattern": "def night_shift"}},
                                       {"path_absent": "pkg/old/"}]}
    assert f.paths == ["README.md", "pkg/old/", "src/app.py"]
    assert f.observed_at_precision == "instant"


@pytest.mark.parametrize(
    ("check", "error", "part"),
    [
        ({"all": [CONTAINS, {"file_contains": {"path": "a.py", "pattern": "("}}]}, ValueInvalid,
         "finding.resolved_when.all[1].file_contains.pattern: '(' does not compile"),
        ({"all": [{"path_exists": "a.py", "path_absent": "b.py"}]}, ValueInvalid, "finding.resolved_when.all[0]:"),
        ({"exists": "a.py"}, ValueInvalid, "unknown key 'exists'"),
        ({"any": []}, ValueInvalid, "finding.resolved_when.any: [] is not a non-empty array"),
        ({"file_lacks": {"path": "pkg/", "pattern": "x"}}, ValueInvalid,
         "finding.resolved_when.file_lacks.path: 'pkg/' is a directory"),
        ({"file_contains": {"path": "a.py"}}, ValueInvalid, "finding.resolved_when.file_contains:"),
        ({"file_contains": {"path": "a.py", "pattern": 3}}, ValueInvalid,
         "finding.resolved_when.file_contains.pattern: 3"),
        ({"path_exists": 7}, ValueInvalid, "finding.resolved_when.path_exists: 7 is not a path string"),
        ({"path_exists": "../etc/passwd"}, PathRejected, "finding.resolved_when.path_exists"),
        ({"file_contains": {"path": "a.py", "pattern": "x" * 1001}}, ValueTooLong,
         "finding.resolved_when.file_contains.pattern: 1001 characters"),
        ({"any": [{"any": [{"any": [{"any": [{"any": [{"any": [{"any": [{"any": [{"path_exists": "a"}]}]}]}]}]}]}]}]},
         ValueTooLong, "nested deeper than 8"),
        ({"any": [{"path_exists": f"f{i}.py"} for i in range(64)]}, ValueTooLong, "65 nodes, at most 64"),
        (["path_exists", "a.py"], ValueInvalid, "finding.resolved_when: [\"path_exists\", \"a.py\"]"),
    ],
)
def test_a_bad_check_is_one_error_naming_the_part(ledger_conn: psycopg.Connection, check: Any,
                                                  error: type[Exception], part: str) -> None:
    with pytest.raises(error) as info:
        checked(ledger_conn, check)
    assert part in str(info.value)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)


BAD = '{"all": [{"path_exists": "a.py"}, {"file_lacks": {"path": "a.py", "pattern": "[z-a]"}}]}'


def test_every_writer_gets_the_same_validation(ledger_conn: psycopg.Connection) -> None:
    """A plain INSERT, a multi-row INSERT, COPY and an UPDATE are checked as the API is."""
    single = "INSERT INTO ledger.finding (scope, title, resolved_when) VALUES ('s', 't', %s::jsonb)"
    multi = ("INSERT INTO ledger.finding (scope, title, resolved_when) VALUES "
             "('s', 'ok', '{\"path_exists\": \"b.py\"}'), ('s', 't', %s::jsonb)")
    for stmt in (single, multi):
        with pytest.raises(psycopg.Error, match=r"finding\.resolved_when\.all\[1\]\.file_lacks\.pattern") as e:
            ledger_conn.execute(stmt, (BAD,))
        assert e.value.sqlstate == "LD003"
    with pytest.raises(psycopg.Error, match=r"all\[1\]\.file_lacks\.pattern") as e:
        with ledger_conn.cursor().copy("COPY ledger.finding (scope, title, resolved_when) FROM STDIN") as cp:
            cp.write_row(("s", "t", BAD))
    assert e.value.sqlstate == "LD003"
    good = ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, paths, resolved_when) VALUES ('s', 'ok', '{x.py}', "
        "'{\"path_exists\": \"./b.py\"}') RETURNING id, paths, resolved_when").fetchone()
    assert good[1:] == (["x.py", "b.py"], {"path_exists": "b.py"})
    with pytest.raises(psycopg.Error, match=r"all\[1\]\.file_lacks\.pattern"):
        ledger_conn.execute("UPDATE ledger.finding SET resolved_when = %s::jsonb WHERE id = %s", (BAD, good[0]))
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)


def test_copy_and_the_api_store_the_same_check(ledger_conn: psycopg.Connection) -> None:
    api = checked(ledger_conn, {"any": [CONTAINS, {"path_absent": "src/app.py"}]}, key="A")
    copy = "COPY ledger.finding (scope, finding_key, title, kind, resolved_when) FROM STDIN"
    with ledger_conn.cursor().copy(copy) as cp:
        cp.write_row(("s", "B", "b", "drift", '{"any": [{"file_contains": {"path": "./src/app.py", '
                                             '"pattern": "def night_shift"}}, {"path_absent": "src//app.py"}]}'))
    rows = ledger_conn.execute("SELECT paths, resolved_when FROM ledger.finding ORDER BY id").fetchall()
    assert rows[0] == rows[1] == (api.paths, api.resolved_when)


def test_observed_at_precision_is_checked(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(ValueInvalid, match="finding.observed_at_precision: 'hour'"):
        fl.add_finding(ledger_conn, "s", "t", observed_at_precision="hour")
    assert fl.add_finding(ledger_conn, "s", "t", observed_at_precision=" Day ").observed_at_precision == "day"


# --- decisions ---------------------------------------------------------------------------------------


def test_a_touch_never_retires_a_checked_finding_it_opens_a_request(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, CONTAINS, paths=("docs/x.md",))
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"], message="stub night shift")
    assert [(d.action, d.rule) for d in r.decisions] == [("check_requested", "path")]
    assert state(ledger_conn, f.id) == (False, None, None)
    pending = fl.pending_file_states(ledger_conn, "s")
    assert [(p.merge_id, p.commit_sha, p.finding_id, p.paths) for p in pending] == [
        (r.merge_id, "a" * 40, f.id, ["src/app.py"])]
    # a pending request never hides the finding: it stays active and in the prompt
    assert [a.id for a in fl.active_findings(ledger_conn, "s")] == [f.id]
    prompt = ledger_conn.execute("SELECT findings FROM ledger.read_prompt_findings('s')").fetchone()[0]
    assert [p["id"] for p in prompt] == [f.id]
    # a touch of a path the check does not name decides nothing
    r2 = fl.record_merge(ledger_conn, "s", "b" * 40, paths=["docs/x.md"])
    assert [d.action for d in r2.decisions] == ["mention"]
    assert "does not name docs/x.md" in (r2.decisions[0].reason or "")
    assert len(fl.pending_file_states(ledger_conn, "s")) == 1


def test_a_touch_under_a_named_directory_opens_a_request(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, {"path_exists": "packages/nightshift/"})
    fl.record_merge(ledger_conn, "s", "a" * 40, paths=["packages/nightshift/README.md"])
    assert [(p.finding_id, p.paths) for p in fl.pending_file_states(ledger_conn)] == [(f.id, ["packages/nightshift/"])]


def test_added_and_deleted_decide_in_sql_without_a_pending_request(ledger_conn: psycopg.Connection) -> None:
    moved = checked(ledger_conn, {"all": [{"path_absent": "pkg/"}, {"path_exists": "new/x.py"}]}, key="M")
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["pkg/x.py", "new/x.py"], added=["new/x.py"],
                        deleted=["pkg/x.py", "pkg/"], node_id="group-2")
    assert fl.pending_file_states(ledger_conn) == []
    assert state(ledger_conn, moved.id) == (True, r.merge_id, "check")
    assert audit(ledger_conn, moved.id) == [(r.merge_id, "check_requested", "path", "new/x.py"),
                                            (r.merge_id, "superseded", "check", "all")]
    assert ledger_conn.execute("SELECT superseded_by FROM ledger.finding WHERE id = %s",
                               (moved.id,)).fetchone() == ("group-2",)


def test_added_and_deleted_can_decide_that_the_check_fails(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, {"path_exists": "src/app.py"})
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"], added=[], deleted=["src/app.py"])
    assert audit(ledger_conn, f.id)[-2:] == [(r.merge_id, "check_failed", "check", "path_exists"),
                                             (r.merge_id, "flagged", "check", "path_exists")]  # kind drift: flag
    assert state(ledger_conn, f.id) == (False, None, None)
    # a modification (touched, neither added nor deleted) says the file exists
    r2 = fl.record_merge(ledger_conn, "s", "b" * 40, paths=["src/app.py"], added=[], deleted=[])
    assert state(ledger_conn, f.id) == (True, r2.merge_id, "check")


def test_what_added_deleted_cannot_decide_waits_for_the_tree(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, CONTAINS)
    # the file was added, but its text is what the check needs
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"], added=["src/app.py"], deleted=[])
    assert [p.merge_id for p in fl.pending_file_states(ledger_conn)] == [r.merge_id]
    out = fl.record_file_states(ledger_conn, r.merge_id, {"src/app.py": "def night_shift():\n    pass\n"})
    assert [(o.finding_id, o.outcome, o.part) for o in out] == [(f.id, "held", "file_contains")]


def test_a_resolving_message_opens_a_request_instead_of_retiring(ledger_conn: psycopg.Connection) -> None:
    """Message rules still name a checked finding, but the check decides: a
    resolving message (key, slug) opens a request like a touch of its paths."""
    f = checked(ledger_conn, CONTAINS, key="F-7")
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["README.md"], message="Fixes F-7")
    assert [(d.action, d.rule) for d in r.decisions] == [("check_requested", "key")]
    assert state(ledger_conn, f.id) == (False, None, None)
    out = fl.record_file_states(ledger_conn, r.merge_id, {"src/app.py": "nothing yet"})
    assert [o.outcome for o in out] == ["failed"]
    assert audit(ledger_conn, f.id)[-2:] == [(r.merge_id, "check_failed", "check", "file_contains"),
                                             (r.merge_id, "flagged", "check", "file_contains")]  # kind drift: flag


def test_a_merge_older_than_the_finding_opens_nothing(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, CONTAINS, observed_at=datetime(2026, 6, 1, tzinfo=timezone.utc))
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"],
                        merged_at=datetime(2026, 5, 1, tzinfo=timezone.utc))
    assert [d.action for d in r.decisions] == ["not_before_observed"]
    assert fl.pending_file_states(ledger_conn) == []
    assert state(ledger_conn, f.id) == (False, None, None)


def test_dry_mode_audits_would_supersede_and_keeps_the_finding(ledger_conn: psycopg.Connection) -> None:
    fl.set_hygiene_mode(ledger_conn, "s", "dry", create=True)
    f = checked(ledger_conn, {"path_exists": "src/app.py"})
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"], added=["src/app.py"], deleted=[])
    assert audit(ledger_conn, f.id)[-1] == (r.merge_id, "would_supersede", "check", "path_exists")
    assert state(ledger_conn, f.id) == (False, None, None)


def test_history_shows_the_check(ledger_conn: psycopg.Connection) -> None:
    f = checked(ledger_conn, CONTAINS)
    events = fl.findings.read_history(ledger_conn, f.id)
    assert events[0].event == "reported"
    assert events[0].detail["resolved_when"] == {"file_contains": {"path": "src/app.py", "pattern": "def night_shift"}}


def test_report_finding_takes_a_check(ledger_conn: psycopg.Connection) -> None:
    out = fl.report_finding(ledger_conn, "s", "F9", "t", resolved_when={"path_absent": "old.py"})
    row = ledger_conn.execute("SELECT resolved_when, paths FROM ledger.finding WHERE id = %s",
                              (out.finding_id,)).fetchone()
    assert row == ({"path_absent": "old.py"}, ["old.py"])


# --- date-only observed_at ------------------------------------------------------------------------------


def test_naming_evidence_passes_the_gate_on_the_day_of_a_date_only_observation(
        ledger_conn: psycopg.Connection) -> None:
    """observed_at_precision day: the importer writes the day's end; a fix
    merged earlier that day naming the finding's own key retires it, a touch
    that day does not (it may predate the finding)."""
    end_of_day = datetime(2026, 6, 24, 23, 59, 59, 999999, tzinfo=timezone.utc)
    named = fl.add_finding(ledger_conn, "s", "nightshift still registered", finding_key="F-12", kind="drift",
                           observed_at=end_of_day, observed_at_precision="day")
    touched = fl.add_finding(ledger_conn, "s", "cli.py is stale", finding_key="F-13", kind="drift",
                             paths=["cli.py"], observed_at=end_of_day, observed_at_precision="day")
    noon = datetime(2026, 6, 24, 12, 0, tzinfo=timezone.utc)
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["cli.py"], message="Fixes F-12", merged_at=noon)
    by_finding = {d.finding_id: d.action for d in r.decisions}
    assert by_finding == {named.id: "superseded", touched.id: "not_before_observed"}
    # the day before is still before the problem
    instant = fl.add_finding(ledger_conn, "s", "x", finding_key="F-14", observed_at=end_of_day)
    r2 = fl.record_merge(ledger_conn, "s", "b" * 40, message="Fixes F-14", merged_at=noon)
    assert [(d.finding_id, d.action) for d in r2.decisions] == [(instant.id, "not_before_observed")]


def test_the_shipped_default_touch_mode_is_in_one_place(ledger_conn: psycopg.Connection) -> None:
    assert ledger_conn.execute(
        "SELECT ledger._default_touch_mode('drift'), ledger._default_touch_mode('review'), "
        "ledger._default_touch_mode('todo')").fetchone() == ("flag", "retire", "retire")
    assert ledger_conn.execute("SELECT ledger._touch_mode('{}', 'drift'), ledger._touch_mode('{}', 'review')"
                               ).fetchone() == ("flag", "retire")
    # an entry of the scope wins over the shipped mode; "*" too
    assert ledger_conn.execute(
        "SELECT ledger._touch_mode(%s, 'drift'), ledger._touch_mode(%s, 'drift')",
        (Jsonb({"drift": "retire"}), Jsonb({"*": "recheck"}))).fetchone() == ("retire", "recheck")
    assert ledger_conn.execute(
        "SELECT ledger._touch_mode(%s, 'drift'), ledger._touch_mode(%s, 'review')",
        (Jsonb({"drift": "flag", "*": "recheck"}), Jsonb({"drift": "flag", "*": "recheck"}))).fetchone() == (
        "flag", "recheck")


def test_a_failed_check_flags_the_finding_for_its_reader_under_touch_mode_flag(
        ledger_conn: psycopg.Connection) -> None:
    """A check its reviewer wrote wrong never holds: under touch mode flag (the shipped mode of kind
    drift) a merge that touched what the check names and failed it is listed as "possibly resolved"
    in the next prompt, and the reader's verdict retires the finding by that merge; under retire
    the check alone decides, and nothing is flagged."""
    f = checked(ledger_conn, CONTAINS)
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["src/app.py"], message="Rename night_shift to nightshift")
    out = fl.record_file_states(ledger_conn, r.merge_id, {"src/app.py": "def nightshift():\n    return 1\n"})
    assert [o.outcome for o in out] == ["failed"]
    assert audit(ledger_conn, f.id)[-2:] == [(r.merge_id, "check_failed", "check", "file_contains"),
                                             (r.merge_id, "flagged", "check", "file_contains")]
    assert state(ledger_conn, f.id) == (False, None, None)
    [shown] = fl.read_prompt_findings(ledger_conn, "s").findings
    assert [t.sha for t in shown.touched_by] == ["a" * 40]
    text = fl.read_prompt_text(ledger_conn, "s").prompt
    assert f"possibly resolved by {'a' * 12} (Rename night_shift to nightshift)" in text
    v = fl.verify_finding(ledger_conn, f.id, "resolved", "renamed: nightshift() is the new command", "agent-7")
    assert (v.action, v.rule, v.merge_id) == ("superseded", "verified", r.merge_id)
    assert state(ledger_conn, f.id) == (True, r.merge_id, "verified")
    # under retire, the check alone decides: a failed check flags nothing
    fl.set_match_policy(ledger_conn, "t", create=True, touch="retire", touch_kind="drift")
    g = checked(ledger_conn, CONTAINS, scope="t")
    r2 = fl.record_merge(ledger_conn, "t", "b" * 40, paths=["src/app.py"])
    fl.record_file_states(ledger_conn, r2.merge_id, {"src/app.py": "pass\n"})
    assert [a[1] for a in audit(ledger_conn, g.id)] == ["check_requested", "check_failed"]
    assert fl.read_prompt_findings(ledger_conn, "t").findings[0].touched_by == ()
