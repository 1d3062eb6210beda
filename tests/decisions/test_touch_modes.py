"""What a resolving touch does to a finding without a check, per scope and
kind (scope.touch_modes): retire (the path rule), recheck (a recheck request
a verifier claims and answers), flag (the finding stays; the prompt read
lists the merges that touched it). The recheck queue: claim exactly once
under concurrency (SKIP LOCKED), leases that expire, answers under a lease
only."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

import findings_ledger as fl
from findings_ledger.cli import main
from findings_ledger.errors import LeaseInvalid, NotFound, ValueInvalid, ValueRequired

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)


def drift(conn: psycopg.Connection[Any], key: str, path: str, kind: str = "drift", scope: str = "s") -> int:
    return fl.add_finding(conn, scope, f"{path} is stale", finding_key=key, paths=[path], kind=kind,
                          observed_at=OLD).id


def active(conn: psycopg.Connection[Any], scope: str = "s") -> list[int]:
    return sorted(f.id for f in fl.active_findings(conn, scope))


def test_flag_is_the_shipped_default_for_drift(ledger_conn: psycopg.Connection) -> None:
    """An unchecked drift finding touched by a merge stays active, its audit
    row says flagged, and the prompt read lists the touching merge."""
    f = drift(ledger_conn, "F1", "a.py")
    r = fl.record_merge(ledger_conn, "s", "342b7a0" + "0" * 33, paths=["a.py"],
                        message="Move night-shift into its own package\n\nDetails.")
    assert [(d.finding_id, d.action, d.rule) for d in r.decisions] == [(f, "flagged", "path")]
    assert "touch mode flag" in r.decisions[0].reason
    assert active(ledger_conn) == [f]
    assert ledger_conn.execute("SELECT superseded_at, superseded_by FROM ledger.finding WHERE id = %s",
                               (f,)).fetchone() == (None, None)
    assert ledger_conn.execute("SELECT finding_id, action, rule, evidence FROM ledger.supersession").fetchall() == [
        (f, "flagged", "path", "a.py")]
    findings = ledger_conn.execute("SELECT findings FROM ledger.read_prompt_findings('s')").fetchone()[0]
    assert [(x["id"], x["touched_count"], x["touched_by"]) for x in findings] == [
        (f, 1, [{"merge_id": r.merge_id, "sha": "342b7a0" + "0" * 33,
                 "subject": "Move night-shift into its own package"}])]
    policy = fl.set_match_policy(ledger_conn, "s")
    assert policy.touch_modes == {}
    assert ledger_conn.execute("SELECT count(*) FROM ledger.recheck_request").fetchone() == (0,)


def test_the_default_flags_plain_insert_writers_too(ledger_conn: psycopg.Connection) -> None:
    """A service writing rows gets the same default as the API."""
    fid = ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths, observed_at) "
        "VALUES ('p', 'cli.py is stale', 'drift', '{cli.py}', '2020-01-01Z') RETURNING id").fetchone()[0]
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths) "
                        "VALUES ('p', %s, 'Edit cli.py', '{cli.py}')", ("b" * 40,))
    assert ledger_conn.execute("SELECT action FROM ledger.supersession WHERE finding_id = %s",
                               (fid,)).fetchall() == [("flagged",)]
    assert active(ledger_conn, "p") == [fid]


def test_a_checked_drift_finding_is_not_flagged_by_the_default(ledger_conn: psycopg.Connection) -> None:
    """A checked finding is decided by its check, whatever the touch mode:
    a touch opens a file-state request and the check retires it."""
    f = fl.add_finding(ledger_conn, "s", "extraction.py does not exist", finding_key="F1", kind="drift",
                       paths=["extraction.py"], observed_at=OLD,
                       resolved_when={"path_exists": "extraction.py"}).id
    r = fl.record_merge(ledger_conn, "s", "c" * 40, paths=["extraction.py"], added=["extraction.py"])
    assert [(d.finding_id, d.action, d.rule) for d in r.decisions] == [
        (f, "check_requested", "path"), (f, "superseded", "check")]
    assert active(ledger_conn) == []
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession WHERE action = 'flagged'"
                               ).fetchone() == (0,)


def test_other_kinds_keep_retire_and_candidate(ledger_conn: psycopg.Connection) -> None:
    """Kinds other than drift keep their behaviour: outside the path kinds a
    touch is a candidate; inside them (path_supersede_kinds '*') it retires."""
    review = drift(ledger_conn, "R1", "a.py", kind="review")
    r = fl.record_merge(ledger_conn, "s", "d" * 40, paths=["a.py"])
    assert [(d.finding_id, d.action) for d in r.decisions] == [(review, "candidate")]
    fl.set_match_policy(ledger_conn, "t", path_supersede_kinds=["*"], create=True)
    todo = drift(ledger_conn, "T1", "b.py", kind="todo", scope="t")
    flagged = drift(ledger_conn, "D1", "b.py", scope="t")
    r = fl.record_merge(ledger_conn, "t", "e" * 40, paths=["b.py"])
    assert sorted((d.finding_id, d.action, d.rule) for d in r.decisions) == sorted(
        [(todo, "superseded", "path"), (flagged, "flagged", "path")])
    assert active(ledger_conn, "t") == [flagged]


def test_touch_retire_restores_the_path_rule(ledger_conn: psycopg.Connection) -> None:
    fl.set_match_policy(ledger_conn, "s", touch="retire", touch_kind="drift", create=True)
    f = drift(ledger_conn, "F1", "a.py")
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["a.py"])
    assert [(d.action, d.rule) for d in r.decisions] == [("superseded", "path")]
    assert f not in active(ledger_conn)
    # back to the shipped mode: the next drift finding is flagged
    assert fl.set_match_policy(ledger_conn, "s", touch="", touch_kind="drift").touch_modes == {}
    g = drift(ledger_conn, "F2", "a.py")
    r = fl.record_merge(ledger_conn, "s", "f" * 40, paths=["a.py"])
    assert [(d.finding_id, d.action) for d in r.decisions] == [(g, "flagged")]


def test_touch_modes_per_kind_and_star(ledger_conn: psycopg.Connection) -> None:
    fl.set_match_policy(ledger_conn, "s", touch="flag", touch_kind="Drift", create=True)
    p = fl.set_match_policy(ledger_conn, "s", touch="recheck", path_supersede_kinds=["*"])
    assert p.touch_modes == {"drift": "flag", "*": "recheck"}
    flagged = drift(ledger_conn, "F1", "a.py")
    rechecked = drift(ledger_conn, "F2", "a.py", kind="review")
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["a.py"], message="Refactor a.py\n\nlonger body")
    assert sorted((d.finding_id, d.action) for d in r.decisions) == [
        (flagged, "flagged"), (rechecked, "recheck_requested")]
    assert active(ledger_conn) == sorted([flagged, rechecked])
    assert "touch mode flag" in next(d.reason for d in r.decisions if d.finding_id == flagged)
    # the audit detail names the touch mode that decided, per finding's kind
    assert {d.finding_id: d.detail["touch_mode"] for d in r.decisions} == {flagged: "flag", rechecked: "recheck"}
    # and a decision that no touch mode made carries none
    assert fl.set_match_policy(ledger_conn, "t", touch="retire", touch_kind="drift", create=True)
    retired = drift(ledger_conn, "F3", "b.py", scope="t")
    r = fl.record_merge(ledger_conn, "t", "b" * 40, paths=["b.py"])
    assert [(d.finding_id, d.action, d.detail.get("touch_mode")) for d in r.decisions] == [
        (retired, "superseded", None)]
    # '' removes an entry: back to the shipped flag for drift? no: '*' still says recheck
    assert fl.set_match_policy(ledger_conn, "s", touch="", touch_kind="drift").touch_modes == {"*": "recheck"}


def test_bad_touch_settings_are_refused(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(ValueInvalid, match="scope.touch_modes\\['drift'\\]: \"ignore\""):
        fl.set_match_policy(ledger_conn, "s", touch="ignore", touch_kind="drift", create=True)
    with pytest.raises(ValueRequired, match="touch is required with touch_kind 'drift'"):
        fl.set_match_policy(ledger_conn, "s", touch_kind="drift", create=True)
    with pytest.raises(psycopg.Error, match="scope.touch_modes") as e:
        ledger_conn.execute("INSERT INTO ledger.scope (scope, touch_modes) VALUES ('t', '{\"drift\": 1}')")
    assert e.value.sqlstate == "LD003"


def test_flagged_findings_carry_the_merges_that_touched_them_in_the_prompt(ledger_conn: psycopg.Connection) -> None:
    fl.set_match_policy(ledger_conn, "s", touch="flag", create=True)
    f = drift(ledger_conn, "F1", "packages/nightshift/")
    quiet = drift(ledger_conn, "F2", "README.md")
    m1 = fl.record_merge(ledger_conn, "s", "342b7a0" + "0" * 33, paths=["packages/nightshift/cli.py"],
                         message="Move night-shift into its own package\n\nDetails.").merge_id
    m2 = fl.record_merge(ledger_conn, "s", "ad342a9" + "0" * 33, paths=["packages/nightshift/x.py"],
                         message="Second").merge_id
    findings = ledger_conn.execute("SELECT findings FROM ledger.read_prompt_findings('s')").fetchone()[0]
    by_id = {x["id"]: x for x in findings}
    assert by_id[f]["touched_by"] == [
        {"merge_id": m1, "sha": "342b7a0" + "0" * 33, "subject": "Move night-shift into its own package"},
        {"merge_id": m2, "sha": "ad342a9" + "0" * 33, "subject": "Second"}]
    assert by_id[f]["touched_count"] == 2
    assert by_id[f]["touch_lines"] == [
        f"possibly resolved by 342b7a000000 (Move night-shift into its own package): verify with "
        f"ledger.verify_finding({f}, 'resolved' | 'still_true', evidence, verifier)",
        f"possibly resolved by ad342a900000 (Second): verify with "
        f"ledger.verify_finding({f}, 'resolved' | 'still_true', evidence, verifier)"]
    assert by_id[f]["chars"] == len(by_id[f]["title"]) + sum(1 + len(x) for x in by_id[f]["touch_lines"])
    assert "touched_by" not in by_id[quiet] and "touched_count" not in by_id[quiet]


def recheck_scope(conn: psycopg.Connection[Any], n: int) -> list[int]:
    fl.set_match_policy(conn, "s", touch="recheck", create=True)
    ids = [drift(conn, f"F{i}", f"f{i}.py") for i in range(n)]
    fl.record_merge(conn, "s", "a" * 40, paths=[f"f{i}.py" for i in range(n)])
    return ids


def test_a_resolved_recheck_retires_with_rule_recheck_and_the_evidence(ledger_conn: psycopg.Connection) -> None:
    f1, f2 = recheck_scope(ledger_conn, 2)
    claimed = fl.claim_rechecks(ledger_conn, "s", "drift-reviewer", 10)
    assert sorted(c.finding_id for c in claimed) == [f1, f2]
    assert all(c.verifier == "drift-reviewer" and c.lease_until is not None for c in claimed)
    by_finding = {c.finding_id: c for c in claimed}
    done = fl.answer_recheck(ledger_conn, by_finding[f1].id, True, "extraction.py now exists",
                             verifier="drift-reviewer")
    assert done.resolved is True and done.answered_at is not None
    kept = fl.answer_recheck(ledger_conn, by_finding[f2].id, False, "f1.py still registers triage",
                             verifier="drift-reviewer")
    assert kept.resolved is False
    assert active(ledger_conn) == [f2]
    assert ledger_conn.execute("SELECT supersede_rule FROM ledger.finding WHERE id = %s", (f1,)).fetchone() == (
        "recheck",)
    rows = ledger_conn.execute("SELECT finding_id, action, rule, evidence, actor FROM ledger.supersession "
                               "WHERE rule = 'recheck' ORDER BY id").fetchall()
    assert rows == [(f1, "superseded", "recheck", "extraction.py now exists", "drift-reviewer"),
                    (f2, "recheck_kept", "recheck", "f1.py still registers triage", "drift-reviewer")]
    # the same answer again is a no-op; another answer is refused
    assert fl.answer_recheck(ledger_conn, by_finding[f1].id, True, "extraction.py now exists",
                             verifier="drift-reviewer").resolved is True
    with pytest.raises(LeaseInvalid, match="was answered before"):
        fl.answer_recheck(ledger_conn, by_finding[f1].id, False, "changed my mind", verifier="drift-reviewer")
    assert fl.claim_rechecks(ledger_conn, "s", "drift-reviewer", 10) == []


def test_answers_need_the_lease(ledger_conn: psycopg.Connection) -> None:
    (f1,) = recheck_scope(ledger_conn, 1)
    req = ledger_conn.execute("SELECT id FROM ledger.recheck_request WHERE finding_id = %s", (f1,)).fetchone()[0]
    before = ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone()
    with pytest.raises(LeaseInvalid, match="is not claimed"):
        fl.answer_recheck(ledger_conn, req, True, "x", verifier="v1")
    fl.claim_rechecks(ledger_conn, "s", "v1", 1)
    with pytest.raises(LeaseInvalid, match="is leased to 'v1', not to 'v2'"):
        fl.answer_recheck(ledger_conn, req, True, "x", verifier="v2")
    # the lease runs out (moved into the past, as time would)
    ledger_conn.execute("UPDATE ledger.recheck_request SET lease_until = clock_timestamp() - interval '1 second'")
    with pytest.raises(LeaseInvalid, match="the lease of 'v1' expired"):
        fl.answer_recheck(ledger_conn, req, True, "x", verifier="v1")
    with pytest.raises(NotFound, match="unknown recheck request"):
        fl.answer_recheck(ledger_conn, req + 99, True, "x", verifier="v1")
    with pytest.raises(ValueRequired, match="evidence is required"):
        fl.answer_recheck(ledger_conn, req, True, " ", verifier="v1")
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == before
    assert active(ledger_conn) == [f1]
    # an expired lease can be claimed again, by another verifier
    again = fl.claim_rechecks(ledger_conn, "s", "v2", 5, lease=timedelta(minutes=1))
    assert [(c.id, c.verifier) for c in again] == [(req, "v2")]
    assert fl.answer_recheck(ledger_conn, req, True, "gone", verifier="v2").resolved is True


def test_claim_arguments_are_checked(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(ValueInvalid, match="invalid max: 0"):
        fl.claim_rechecks(ledger_conn, "s", "v", 0)
    with pytest.raises(ValueInvalid, match="invalid lease"):
        fl.claim_rechecks(ledger_conn, "s", "v", 1, lease=timedelta(seconds=-1))
    with pytest.raises(ValueRequired, match="verifier is required"):
        fl.claim_rechecks(ledger_conn, "s", "", 1)


def test_claims_are_exactly_once_under_concurrency(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    recheck_scope(ledger_conn, 30)
    barrier = threading.Barrier(3)
    got: dict[str, list[int]] = {}
    errors: list[BaseException] = []

    def claim(name: str) -> None:
        try:
            with psycopg.connect(ledger_dsn, autocommit=False) as conn:
                barrier.wait()
                mine: list[int] = []
                for _ in range(6):
                    mine += [c.id for c in fl.claim_rechecks(conn, "s", name, 3)]
                conn.commit()
                got[name] = mine
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=claim, args=(f"v{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    claimed = [i for ids in got.values() for i in ids]
    assert len(claimed) == len(set(claimed)) == 30
    assert ledger_conn.execute("SELECT count(*) FROM ledger.recheck_request WHERE verifier IS NULL").fetchone() == (
        0,)


def test_cli_policy_touch(ledger_dsn: str) -> None:
    runner = CliRunner()
    out = runner.invoke(main, ["policy", "--dsn", ledger_dsn, "s", "--touch", "recheck", "--kind", "drift",
                               "--create"])
    assert out.exit_code == 0, out.output
    assert "touch           drift: recheck" in out.output
    out = runner.invoke(main, ["policy", "--dsn", ledger_dsn, "s", "--kind", "drift"])
    assert out.exit_code != 0
    assert "--kind needs --touch" in out.output
    out = runner.invoke(main, ["policy", "--dsn", ledger_dsn, "s", "--touch", "default", "--kind", "drift"])
    assert "touch           (default: flag for drift, retire for every other kind)" in out.output
    out = runner.invoke(main, ["policy", "--dsn", ledger_dsn, "s", "--touch", "retire", "--kind", "drift"])
    assert out.exit_code == 0, out.output
    assert "touch           drift: retire" in out.output


def test_any_touch_of_the_file_counts_for_an_unchecked_finding(ledger_conn: psycopg.Connection) -> None:
    """Under flag and recheck, a merge whose hunks fall away from an unchecked
    finding's anchored lines still counts as a touch of it (flagged, or a
    recheck request), and the anchor still moves with the lines above it.
    Touch mode retire and checked findings keep the line rules."""
    fl.set_match_policy(ledger_conn, "s", touch="flag", touch_kind="drift", create=True)
    fl.set_match_policy(ledger_conn, "s", touch="recheck", touch_kind="todo")
    fl.set_match_policy(ledger_conn, "s", touch="retire", touch_kind="bug", path_supersede_kinds=["*"])
    flagged = drift(ledger_conn, "F1", "a.py:42")
    rechecked = drift(ledger_conn, "F2", "a.py:50", kind="todo")
    retired = drift(ledger_conn, "F3", "a.py:60", kind="bug")
    checked = fl.add_finding(ledger_conn, "s", "a.py:70 is stale", finding_key="F4", kind="drift",
                             paths=["a.py:70", "b.py"], observed_at=OLD, resolved_when={"path_absent": "b.py"}).id
    # 3 lines added above all of them, none of their lines changed
    r = fl.record_merge(ledger_conn, "s", "a" * 40, paths=["a.py"], hunks={"a.py": [[1, 0, 2, 3]]})
    got = {d.finding_id: (d.action, d.rule, d.detail.get("touch_mode")) for d in r.decisions}
    assert got == {flagged: ("flagged", "path", "flag"), rechecked: ("recheck_requested", "path", "recheck"),
                   retired: ("anchor_moved", "path", None), checked: ("mention", "path", None)}
    assert "any touch of the file of a finding without a check counts" in next(
        d.reason for d in r.decisions if d.finding_id == flagged)
    anchors = dict(ledger_conn.execute("SELECT id, anchors FROM ledger.finding WHERE scope = 's'").fetchall())
    assert anchors[flagged] == {"a.py": [45, 45]} and anchors[rechecked] == {"a.py": [53, 53]}
    assert anchors[retired] == {"a.py": [63, 63]}
    assert ledger_conn.execute("SELECT finding_id FROM ledger.recheck_request").fetchall() == [(rechecked,)]
    # a change far below every line: flagged and rechecked again, the retire-mode one kept (an anchor
    # that did not move: no row)
    r = fl.record_merge(ledger_conn, "s", "b" * 40, paths=["a.py"], hunks={"a.py": [[500, 1, 500, 1]]})
    got = {d.finding_id: d.action for d in r.decisions}
    assert got == {flagged: "flagged", rechecked: "recheck_requested", checked: "mention"}
    assert active(ledger_conn) == sorted([flagged, rechecked, retired, checked])
