"""The operator CLI verbs: reconcile and scope-rls."""

from __future__ import annotations

import psycopg
from click.testing import CliRunner
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl
from findings_ledger.cli import main

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_reconcile_and_scope_rls(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    fid = fl.add_finding(ledger_conn, "spec", "stale", paths=["a.py"], kind="drift").id
    ledger_conn.execute("SET session_replication_role = replica")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'abcd', '{./a.py}')")
    ledger_conn.execute("SET session_replication_role = DEFAULT")
    assert run("reconcile", "--dsn", ledger_dsn, "spec") == (
        0, "merge 1: 1 superseded, 1 audit rows\nspec: 1 merges reconciled\n")
    assert run("reconcile", "--dsn", ledger_dsn, "spec") == (0, "spec: 0 merges reconciled\n")
    assert ledger_conn.execute("SELECT superseded_by_merge_id FROM ledger.finding WHERE id = %s", (fid,)).fetchone() \
        == (1,)
    code, out = run("scope-rls", "--dsn", ledger_dsn, "on")
    assert code == 0 and "ledger.finding" in out
    assert ledger_conn.execute("SELECT relrowsecurity FROM pg_class WHERE oid = 'ledger.scope'::regclass").fetchone() \
        == (True,)
    assert run("scope-rls", "--dsn", ledger_dsn, "off")[0] == 0


def test_reconcile_unknown_scope_is_one_error_line(ledger_dsn: str) -> None:
    result = CliRunner().invoke(main, ["reconcile", "--dsn", ledger_dsn, "nope"])
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "[LD005]" in result.output
