"""The drift-review scenario's figures, replayed through the ledger (findings_ledger.demo).

The scenario: 12 drift findings, 3,356 characters, injected unchanged into the
prompts of groups 2 to 7; by group 6 only 2-3 were still relevant. Under the
shipped policy the 4 findings with a check retire at their fix, the others
are flagged by the merge that touches them and verified by the next group's
(scripted) agent. Every figure asserted here is read back from the database
by the scenario."""

from __future__ import annotations

import psycopg
import pytest

import findings_ledger as fl
from findings_ledger import demo

SCOPE = "demo-test"


@pytest.fixture
def report(ledger_conn: psycopg.Connection) -> demo.DemoReport:
    return demo.run_scenario(ledger_conn, SCOPE)


ALL = [f"F{i:02d}" for i in range(1, 13)]
# what each group's prompt carries (the findings still active when it is read) and which of them it shows
# as possibly resolved, with the group whose merge flagged it; then the prompt read after group 7
PROMPTS = {
    2: (set(ALL), {}),
    3: (set(ALL) - {"F02"}, {"F03": 2}),
    4: (set(ALL) - {"F02", "F03", "F01"}, {"F05": 3, "F06": 3}),
    5: (set(ALL) - {"F02", "F03", "F01", "F05", "F06", "F07"}, {"F08": 4}),
    6: ({"F09", "F10", "F11", "F12"}, {"F09": 5}),
    7: ({"F10", "F11", "F12"}, {"F10": 6}),
    8: ({"F11", "F12"}, {}),
}


def _ids(conn: psycopg.Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT finding_key, id FROM ledger.finding WHERE scope = %s", (SCOPE,)).fetchall())


def test_every_prompt_without_the_ledger_carries_all_12_findings(report: demo.DemoReport) -> None:
    assert [g.group for g in report.groups] == [2, 3, 4, 5, 6, 7]
    for g in report.groups:
        assert (g.prompt.all_findings, g.prompt.all_chars) == (12, 3356)


def test_each_prompt_as_read_and_the_verdicts_of_its_agent(report: demo.DemoReport,
                                                           ledger_conn: psycopg.Connection) -> None:
    chars = {f.finding_key: f.chars for f in report.findings}
    ids = _ids(ledger_conn)
    sha = {m.group: m.commit_sha for m in demo.MERGES}
    reads = [(g.group, g.read) for g in report.groups] + [(8, report.after_read)]
    for group, read in reads:
        keys, flagged = PROMPTS[group]
        assert read.included_count == len(keys), group
        assert [(e.finding_key, e.commit_sha) for e in read.flagged] == [
            (k, sha[flagged[k]][:12]) for k in sorted(flagged, key=lambda k: -ids[k])], group
        # the touch line each flagged entry carries, as the database printed it: the merge and its subject
        lines = []
        for k, by in flagged.items():
            message = next(m.message for m in demo.MERGES if m.group == by)
            line = (f"possibly resolved by {sha[by][:12]} ({message}): verify with "
                    f"ledger.verify_finding({ids[k]}, 'resolved' | 'still_true', evidence, verifier)")
            assert line in read.text.splitlines(), (group, line)
            lines.append(line)
        # the characters the prompt carries: each finding's title and description, and its touch lines
        assert read.included_chars == sum(chars[k] for k in keys) + sum(1 + len(x) for x in lines), group
        # the agent's verdicts, scripted from the scenario's truth: every touch here resolved its finding
        assert [(v.finding_key, v.verdict, v.audit_action, v.audit_rule) for v in read.verdicts] == [
            (e.finding_key, "resolved", "superseded", "verified") for e in read.flagged], group
    assert sum(len(r.flagged) for _, r in reads) == 6


def test_the_verdicts_as_the_ledger_audited_them(report: demo.DemoReport, ledger_conn: psycopg.Connection) -> None:
    rows = ledger_conn.execute(
        "SELECT f.finding_key, a.action, a.actor, m.node_id, f.supersede_rule, f.superseded_by_merge_id = m.id "
        "FROM ledger.supersession a JOIN ledger.finding f ON f.id = a.finding_id "
        "JOIN ledger.merge m ON m.id = a.merge_id WHERE a.scope = %s AND a.rule = 'verified' ORDER BY a.id",
        (SCOPE,)).fetchall()
    node = {m.group: m.node_id for m in demo.MERGES}
    assert rows == [(k, "superseded", demo.AGENT, node[g], "verified", True)
                    for k, g in [("F03", 2), ("F06", 3), ("F05", 3), ("F08", 4), ("F09", 5), ("F10", 6)]]


def test_each_merge_retires_the_checked_findings_and_flags_the_others(report: demo.DemoReport) -> None:
    got = [(g.group, d.finding_key, d.action, d.rule) for g in report.groups for d in g.decisions
           if d.action in ("superseded", "flagged")]
    assert got == [
        (2, "F03", "flagged", "path"), (2, "F02", "superseded", "check"),
        (3, "F05", "flagged", "path"), (3, "F06", "flagged", "path"), (3, "F01", "superseded", "check"),
        (4, "F08", "flagged", "path"), (4, "F07", "superseded", "check"),
        (5, "F09", "flagged", "path"), (5, "F04", "superseded", "check"),
        (6, "F10", "flagged", "path"),
    ]
    sha = {m.group: m.commit_sha for m in demo.MERGES}
    assert all(d.commit_sha == sha[g.group] for g in report.groups for d in g.decisions)
    # the checks the scenario's data decides: a path appearing or going away
    assert sorted(f.finding_key for f in report.findings if f.resolved_when is not None) == ["F01", "F02", "F04",
                                                                                              "F07"]


def test_what_stays_active_is_the_docs_work_left(report: demo.DemoReport, ledger_conn: psycopg.Connection) -> None:
    assert [(f.finding_key, f.paths) for f in report.still_active] == [("F12", []), ("F11", ["README.md"])]
    assert report.still_active == fl.active_findings(ledger_conn, SCOPE)
    assert (report.after_last.active_findings, report.after_last.active_chars) == (2, 606)


def test_the_scenario_matches_the_seed_and_the_database(
    report: demo.DemoReport, ledger_conn: psycopg.Connection
) -> None:
    # the stored review: 12 drift findings, 3,356 characters, paths normalised
    assert len(report.findings) == 12
    assert sum(f.chars for f in report.findings) == 3356
    assert report.findings[2].paths == ["packages/af/af/app.py"]  # written './packages/af/af/app.py:88'
    # the audit agrees with the finding rows: 4 retired by their checks, 6 by the agents' verdicts
    rows = ledger_conn.execute(
        "SELECT count(*) FILTER (WHERE superseded_at IS NOT NULL), count(*) FROM ledger.finding WHERE scope = %s",
        (SCOPE,),
    ).fetchone()
    assert rows == (10, 12)
    assert sorted(ledger_conn.execute(
        "SELECT supersede_rule, count(*) FROM ledger.finding WHERE scope = %s AND superseded_at IS NOT NULL "
        "GROUP BY 1", (SCOPE,)).fetchall()) == [("check", 4), ("verified", 6)]
    # ActiveFinding.prompt_text has the length the SQL counts
    assert sum(len(f.prompt_text()) for f in report.still_active) == 606


def test_the_demo_refuses_a_scope_that_is_not_fresh(ledger_conn: psycopg.Connection) -> None:
    fl.add_finding(ledger_conn, SCOPE, "already here", kind="drift")
    with pytest.raises(ValueError):
        demo.run_scenario(ledger_conn, SCOPE)
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (1,)


def test_default_scopes_differ_between_runs() -> None:
    a, b = demo.default_scope(), demo.default_scope()
    assert a.startswith("demo-07_nightshift_standalone_cli-")
    assert a != b
