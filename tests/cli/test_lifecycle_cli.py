"""The lifecycle commands of the CLI: history (the timeline with actor,
reason and evidence), dismiss, restore, prompt."""

from __future__ import annotations

import psycopg
from click.testing import CliRunner
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.cli import main

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec-07")

SCOPE = "spec-07"


def test_history_shows_every_transition_with_actor_reason_and_evidence(
    ledger_conn: psycopg.Connection, ledger_dsn: str
) -> None:
    f = fl.report_finding(ledger_conn, SCOPE, "D-7", "packages/nightshift/ does not exist",
                          paths=["packages/nightshift/"], kind="drift", severity="high", source="drift-review-g0")
    fl.record_injection(ledger_conn, "07:2", [f.finding_id])
    fl.record_merge(ledger_conn, SCOPE, "3a3a3a3a3a3a", ["packages/nightshift/pyproject.toml"], node_id="group-3")
    fl.report_finding(ledger_conn, SCOPE, "D-7", "packages/nightshift/ does not exist", source="drift-review-g4",
                      review_run="g4")
    runner = CliRunner()
    out = runner.invoke(main, ["dismiss", str(f.finding_id), "false_positive", "--actor", "alice",
                               "--reason", "the scaffold exists since group 3", "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert "dismissed (false_positive by alice)" in out.output

    out = runner.invoke(main, ["history", str(f.finding_id), "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == f"finding {f.finding_id} D-7 [{SCOPE}] drift/high: packages/nightshift/ does not exist"
    assert lines[1] == "state: dismissed (false_positive by alice: the scaffold exists since group 3)"
    events = [line.split()[2] for line in lines[4:]]
    assert events == ["reported", "injected", "superseded", "reopened", "dismissed"]
    reported, injected, superseded, reopened, dismissed = lines[4:]
    assert "by=drift-review-g0" in reported and "evidence=packages/nightshift/" in reported
    assert "by=07:2" in injected
    assert "rule=path" in superseded and "by=group-3" in superseded
    assert "evidence=packages/nightshift/pyproject.toml" in superseded and "(3a3a3a3a3a3a)" in superseded
    assert "rule=rereport" in reopened and "by=drift-review-g4" in reopened and "evidence=g4" in reopened
    assert "by=alice" in dismissed and "reason='the scaffold exists since group 3'" in dismissed
    assert '"resolution": "false_positive"' in dismissed

    out = runner.invoke(main, ["restore", str(f.finding_id), "--actor", "bob", "--reason", "it does not",
                               "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert fl.read_finding(ledger_conn, f.finding_id).state == "active"


def test_history_of_an_unknown_finding_is_one_error_line(ledger_dsn: str) -> None:
    out = CliRunner().invoke(main, ["history", "4242", "--dsn", ledger_dsn])
    assert out.exit_code == 1
    assert "[LD005]" in out.output and "Traceback" not in out.output


def test_prompt_command_prints_the_cut(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    fl.add_finding(ledger_conn, SCOPE, "A" * 30, severity="critical")
    fl.add_finding(ledger_conn, SCOPE, "B" * 30, severity="low")
    fid = fl.active_findings(ledger_conn, SCOPE)[0].id
    first = f"[critical] {'A' * 30} (finding {fid})"
    # the text keeps within the budget, its label included: the first block fits, the second does not
    out = CliRunner().invoke(main, ["prompt", SCOPE, "--max-chars", str(len(first) + 10), "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == [first, "", "1 findings, 30 chars; left out 1 findings, 30 chars"]
    # 40 characters hold the first title (30) but not its block: nothing is printed, both are left out
    out = CliRunner().invoke(main, ["prompt", SCOPE, "--max-chars", "40", "--dsn", ledger_dsn])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines() == ["0 findings, 0 chars; left out 2 findings, 60 chars"]
