"""Flags reach the command line: `prompt` prints the database's text
(ledger.read_prompt_text, touch lines with the verify hint), `active` shows
a flagged finding's latest touch, and `verify ID resolved|still_true`
gives a verdict (ledger.verify_finding). Mistakes are one error line, exit
1 (a verdict click does not know: usage, exit 2)."""

from __future__ import annotations

from datetime import datetime, timezone

import psycopg
from click.testing import CliRunner

import findings_ledger as fl
from findings_ledger.cli import main

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)
SHA1 = "342b7a0b9ad4" + "0" * 28
SHA2 = "ad342a9c0ffe" + "0" * 28


def run(*args: str) -> tuple[int, str]:
    out = CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})  # rich tables at a known width
    return out.exit_code, out.output


def flagged(conn: psycopg.Connection) -> int:
    fid = fl.add_finding(conn, "spec", "app.py still registers night-shift.", finding_key="F1", paths=["app.py"],
                         kind="drift", severity="high", observed_at=OLD).id
    fl.add_finding(conn, "spec", "README runs af night-shift.", finding_key="F2", paths=["README.md"],
                   kind="drift", observed_at=OLD)
    fl.record_merge(conn, "spec", SHA1, paths=["app.py"], message="Move night-shift out\n\nbody")
    fl.record_merge(conn, "spec", SHA2, paths=["app.py"], message="Drop the night-shift command")
    return fid


def test_prompt_prints_the_database_text_with_the_verify_hint(ledger_conn: psycopg.Connection,
                                                              ledger_dsn: str) -> None:
    fid = flagged(ledger_conn)
    code, output = run("prompt", "spec", "--max-touches", "1", "--dsn", ledger_dsn)
    assert code == 0, output
    text = fl.read_prompt_text(ledger_conn, "spec", max_touches=1)
    assert output == text.prompt + "\n\n" + (
        f"2 findings, {text.included_chars} chars; left out 0 findings, 0 chars\n")
    assert (f"possibly resolved by ad342a9c0ffe (Drop the night-shift command): verify with "
            f"ledger.verify_finding({fid}, 'resolved' | 'still_true', evidence, verifier)") in output
    assert "possibly resolved by 1 more merge, not listed (ledger.read_audit)" in output


def test_active_shows_a_flagged_finding_with_its_latest_touch(ledger_conn: psycopg.Connection,
                                                             ledger_dsn: str) -> None:
    flagged(ledger_conn)
    code, output = run("active", "spec", "--dsn", ledger_dsn)
    assert code == 0, output
    assert "active findings of spec (2)" in output and "flagged" in output
    row = next(line for line in output.splitlines() if "app.py still" in line)
    assert "2x, latest ad342a9c0ffe" in row
    other = next(line for line in output.splitlines() if "README runs" in line)
    assert "ad342a9c0ffe" not in other


def test_verify_still_true_then_resolved(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    fid = flagged(ledger_conn)
    code, output = run("verify", str(fid), "still_true", "--evidence", "app.py:88 still registers it",
                       "--verifier", "agent-7", "--dsn", ledger_dsn)
    assert code == 0, output
    assert output.startswith(f"finding {fid}: verified_still_true after ad342a9c0ffe (Drop the night-shift "
                             "command) by agent-7 (audit ")
    code, output = run("prompt", "spec", "--dsn", ledger_dsn)
    assert code == 0 and "possibly resolved" not in output
    code, output = run("verify", str(fid), "resolved", "--evidence", "gone", "--verifier", "agent-8",
                       "--dsn", ledger_dsn)
    assert code == 0, output
    assert output.startswith(f"finding {fid}: superseded by agent-8 (audit ")
    assert [f.finding_key for f in fl.active_findings(ledger_conn, "spec")] == ["F2"]


def test_verify_mistakes_are_one_error_line(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    fid = flagged(ledger_conn)
    for args, expected in [
        ([str(fid), "resolved", "--evidence", "  ", "--verifier", "a"], "[LD002]"),
        (["4242", "resolved", "--evidence", "e", "--verifier", "a"], "[LD005]"),
    ]:
        code, output = run("verify", *args, "--dsn", ledger_dsn)
        assert code == 1 and "Traceback" not in output, output
        assert output.startswith("error:") and expected in output and len(output.splitlines()) == 1, output
    fl.dismiss_finding(ledger_conn, fid, "wont_fix", "alice", "later")
    code, output = run("verify", str(fid), "still_true", "--evidence", "e", "--verifier", "a", "--dsn", ledger_dsn)
    assert code == 1 and "[LD302]" in output and f"finding {fid} is dismissed" in output, output
    code, output = run("verify", str(fid), "maybe", "--evidence", "e", "--verifier", "a", "--dsn", ledger_dsn)
    assert code == 2 and "'maybe' is not one of 'resolved', 'still_true'" in output, output


def test_verify_as_a_role_without_the_grant_is_one_error_line(ledger_conn: psycopg.Connection,
                                                              ledger_dsn: str) -> None:
    fid = flagged(ledger_conn)
    as_reader = ledger_dsn + " options='-c role=ledger_reader'"
    code, output = run("verify", str(fid), "resolved", "--evidence", "e", "--verifier", "a", "--dsn", as_reader)
    assert code == 1 and len(output.splitlines()) == 1, output
    assert "permission denied for function verify_finding" in output and "[42501]" in output
    assert [f.finding_key for f in fl.active_findings(ledger_conn, "spec")] == ["F1", "F2"]
