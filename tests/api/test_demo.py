"""The drift-review scenario's figures, replayed through the ledger (findings_ledger.demo).

The scenario: 12 drift findings, 3,356 characters, injected unchanged into the
prompts of groups 2 to 7; by group 6 only 2-3 were still relevant. Every
figure asserted here is read back from the database by the scenario."""

from __future__ import annotations

import psycopg
import pytest

import findings_ledger as fl
from findings_ledger import demo

SCOPE = "demo-test"


@pytest.fixture
def report(ledger_conn: psycopg.Connection) -> demo.DemoReport:
    return demo.run_scenario(ledger_conn, SCOPE)


def test_every_prompt_without_the_ledger_carries_all_12_findings(report: demo.DemoReport) -> None:
    assert [g.group for g in report.groups] == [2, 3, 4, 5, 6, 7]
    for g in report.groups:
        assert (g.prompt.all_findings, g.prompt.all_chars) == (12, 3356)


def test_per_group_active_findings_and_characters(report: demo.DemoReport) -> None:
    figures = [(g.group, g.prompt.active_findings, g.prompt.active_chars) for g in report.groups]
    assert figures == [
        (2, 12, 3356),
        (3, 10, 2837),
        (4, 7, 1998),
        (5, 5, 1431),
        (6, 3, 856),
        (7, 2, 606),
    ]
    assert (report.after_last.active_findings, report.after_last.active_chars) == (2, 606)
    # by group 6 most of the 12 are superseded, 2-3 still active
    group6 = report.groups[4].prompt
    assert group6.all_findings - group6.active_findings == 9


def test_each_supersession_names_its_merge_node_and_path(report: demo.DemoReport) -> None:
    got = [
        (g.group, d.finding_key, d.action, d.finding_path, d.touched_path, d.superseded_by, d.commit_sha)
        for g in report.groups
        for d in g.decisions
    ]
    sha = {m.group: m.commit_sha for m in demo.MERGES}
    node = {m.group: f"07_nightshift_standalone_cli:{m.group}" for m in demo.MERGES}
    expected = [
        (2, "F02", "packages/af/af/nightshift.py", "packages/af/af/nightshift.py"),
        (2, "F03", "packages/af/af/app.py", "packages/af/af/app.py"),
        (3, "F01", "packages/nightshift/", "packages/nightshift/README.md"),
        (3, "F05", "pyproject.toml", "pyproject.toml"),
        (3, "F06", "uv.lock", "uv.lock"),
        (4, "F07", "packages/nightshift/nightshift/cli.py", "packages/nightshift/nightshift/cli.py"),
        (4, "F08", "packages/af/af/config.py", "packages/af/af/config.py"),
        (5, "F04", "packages/af/tests/test_nightshift.py", "packages/af/tests/test_nightshift.py"),
        (5, "F09", ".github/workflows/ci.yml", ".github/workflows/ci.yml"),
        (6, "F10", "docs/cli.md", "docs/cli.md"),
    ]
    assert got == [(g, k, "superseded", fp, tp, node[g], sha[g]) for g, k, fp, tp in expected]


def test_what_stays_active_is_the_docs_work_left(report: demo.DemoReport, ledger_conn: psycopg.Connection) -> None:
    assert [(f.finding_key, f.paths) for f in report.still_active] == [("F12", []), ("F11", ["README.md"])]
    assert report.still_active == fl.active_findings(ledger_conn, SCOPE)


def test_the_scenario_matches_the_seed_and_the_database(
    report: demo.DemoReport, ledger_conn: psycopg.Connection
) -> None:
    # the stored review: 12 drift findings, 3,356 characters, paths normalised
    assert len(report.findings) == 12
    assert sum(f.chars for f in report.findings) == 3356
    assert report.findings[2].paths == ["packages/af/af/app.py"]  # written './packages/af/af/app.py:88'
    # the audit agrees with the finding rows
    rows = ledger_conn.execute(
        "SELECT count(*) FILTER (WHERE superseded_at IS NOT NULL), count(*) FROM ledger.finding WHERE scope = %s",
        (SCOPE,),
    ).fetchone()
    assert rows == (10, 12)
    assert len(fl.read_audit(ledger_conn, SCOPE)) == 10
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
