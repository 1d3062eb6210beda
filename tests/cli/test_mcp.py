"""findings-ledger mcp: the MCP server for agents, end to end. Each test
starts ``findings-ledger mcp --scope S --dsn <test database>`` as a
subprocess with the MCP SDK's own stdio client, lists the tools, calls
them, and reads what they wrote from the database; a ledger error, a wrong
argument type and a missing argument are tool errors (isError) carrying the
message, never a traceback."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psycopg
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

import findings_ledger as fl
from findings_ledger.cli import main

#: the console script next to this interpreter, as an MCP client's configuration names it
CLI = str(Path(sys.executable).parent / "findings-ledger")
TOOLS = ["read_prompt", "verify_finding", "report_finding", "claim_rechecks", "answer_recheck"]


def session(dsn: str, scope: str, steps: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``steps`` against a ``findings-ledger mcp`` subprocess of ``scope``."""
    params = StdioServerParameters(command=CLI, args=["mcp", "--scope", scope, "--dsn", dsn])

    async def run() -> Any:
        async with Client(params) as client:
            return await steps(client)

    return asyncio.run(run())


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content)


def test_the_tools_are_listed_with_their_input_schemas(ledger_dsn: str) -> None:
    async def steps(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {t.name: t for t in session(ledger_dsn, "mcp-list", steps)}
    assert sorted(tools) == sorted(TOOLS)
    assert tools["verify_finding"].input_schema["properties"]["verdict"]["enum"] == ["resolved", "still_true"]
    assert sorted(tools["answer_recheck"].input_schema["required"]) == ["evidence", "request_id", "resolved",
                                                                       "verifier"]
    assert tools["report_finding"].input_schema["required"] == ["finding_key", "title"]


def test_report_claim_and_answer_write_the_rows(ledger_dsn: str, ledger_conn: psycopg.Connection[Any]) -> None:
    scope = "mcp-recheck"
    fl.set_match_policy(ledger_conn, scope, create=True, touch="recheck", touch_kind="review",
                        path_supersede_kinds=["*"])

    async def report(client: Client) -> Any:
        checked = await client.call_tool("report_finding", {
            "finding_key": "F1", "title": "night_shift is still registered", "kind": "drift",
            "severity": "high", "source": "agent-7",
            "resolved_when": {"file_lacks": {"path": "./src/app.py", "pattern": r"\bnight_shift\b"}}})
        plain = await client.call_tool("report_finding", {
            "finding_key": "F2", "title": "the parser ignores tabs", "paths": ["src/parse.py"]})
        again = await client.call_tool("report_finding", {"finding_key": "F2", "title": "the parser ignores tabs"})
        return checked, plain, again

    checked, plain, again = session(ledger_dsn, scope, report)
    assert not checked.is_error and checked.structured_content["outcome"] == "new"
    assert plain.structured_content["outcome"] == "new" and again.structured_content["outcome"] == "duplicate"
    rows = ledger_conn.execute(
        "SELECT finding_key, kind, severity, source, paths, resolved_when, report_count FROM ledger.finding "
        "WHERE scope = %s ORDER BY id", (scope,)).fetchall()
    assert rows == [
        ("F1", "drift", "high", "agent-7", ["src/app.py"],
         {"file_lacks": {"path": "src/app.py", "pattern": r"\ynight_shift\y"}}, 1),  # the ledger's rewrite
        ("F2", "review", "medium", None, ["src/parse.py"], None, 2)]

    # a merge touches F2's file: touch mode recheck opens a request
    fl.record_merge(ledger_conn, scope, "ab12cd34ef56", ["src/parse.py"], message="Handle tabs in the parser")
    f2 = plain.structured_content["finding_id"]

    async def recheck(client: Client) -> Any:
        claimed = await client.call_tool("claim_rechecks", {"verifier": "verifier-1", "max": 5,
                                                            "lease_seconds": 300})
        other = await client.call_tool("claim_rechecks", {"verifier": "verifier-2"})
        request_id = claimed.structured_content["result"][0]["id"]
        stolen = await client.call_tool("answer_recheck", {"request_id": request_id, "resolved": True,
                                                           "evidence": "x", "verifier": "verifier-2"})
        answered = await client.call_tool("answer_recheck", {
            "request_id": request_id, "resolved": True, "verifier": "verifier-1",
            "evidence": "src/parse.py:12 now splits on \\t"})
        return claimed, other, stolen, answered

    claimed, other, stolen, answered = session(ledger_dsn, scope, recheck)
    [request] = claimed.structured_content["result"]
    assert request["finding_id"] == f2 and request["verifier"] == "verifier-1"
    # what a verifier needs to check it: the finding and the touching commit
    assert (request["title"], request["paths"], request["commit_sha"], request["subject"]) == (
        "the parser ignores tabs", ["src/parse.py"], "ab12cd34ef56", "Handle tabs in the parser")
    assert other.structured_content == {"result": []}  # leased to verifier-1
    assert stolen.is_error and "LD103: " in text(stolen) and "Traceback" not in text(stolen)
    assert not answered.is_error and answered.structured_content["resolved"] is True
    assert answered.structured_content["outcome"] == "resolved"
    assert ledger_conn.execute(
        "SELECT superseded_at IS NOT NULL, supersede_rule FROM ledger.finding WHERE id = %s", (f2,)).fetchone() == (
        True, "recheck")
    assert ledger_conn.execute(
        "SELECT action, rule, evidence, actor FROM ledger.supersession WHERE finding_id = %s AND rule = 'recheck'",
        (f2,)).fetchone() == ("superseded", "recheck", "src/parse.py:12 now splits on \\t", "verifier-1")


def test_errors_are_tool_errors_with_the_ledger_code_and_nothing_is_written(
        ledger_dsn: str, ledger_conn: psycopg.Connection[Any]) -> None:
    async def steps(client: Client) -> Any:
        return {
            "dialect": await client.call_tool("report_finding", {
                "finding_key": "F9", "title": "t",
                "resolved_when": {"file_contains": {"path": "a.py", "pattern": r"def \p{L}+"}}}),
            "blank": await client.call_tool("report_finding", {"finding_key": "F9", "title": "  "}),
            "type": await client.call_tool("claim_rechecks", {"verifier": "v", "max": "many"}),
            "missing": await client.call_tool("answer_recheck", {"request_id": 1}),
            "verdict": await client.call_tool("verify_finding", {"finding_id": 1, "verdict": "fixed",
                                                                 "evidence": "e", "verifier": "v"}),
            "unknown": await client.call_tool("answer_recheck", {"request_id": 987654, "resolved": False,
                                                                 "evidence": "e", "verifier": "v"}),
            "range": await client.call_tool("claim_rechecks", {"verifier": "v", "max": 0}),
        }

    out = session(ledger_dsn, "mcp-errors", steps)
    assert all(r.is_error for r in out.values())
    assert all("Traceback" not in text(r) for r in out.values())
    assert "LD105: invalid finding.resolved_when.file_contains.pattern: " in text(out["dialect"])
    assert r"\p{L} (a Unicode property) at character 5" in text(out["dialect"])
    assert "LD002: " in text(out["blank"])
    assert "max" in text(out["type"]) and "valid integer" in text(out["type"])
    assert all(f in text(out["missing"]) for f in ("resolved", "evidence", "verifier", "Field required"))
    assert "verdict" in text(out["verdict"]) and "'resolved' or 'still_true'" in text(out["verdict"])
    assert "LD005: " in text(out["unknown"])
    assert "LD003: " in text(out["range"])
    assert ledger_conn.execute("SELECT count(*) FROM ledger.finding WHERE scope = 'mcp-errors'").fetchone() == (0,)


def test_a_blank_scope_or_an_unreachable_database_is_one_error_line(ledger_dsn: str) -> None:
    out = CliRunner().invoke(main, ["mcp", "--scope", " ", "--dsn", ledger_dsn])
    assert out.exit_code == 1 and out.stderr.startswith("error: --scope is blank") and out.stdout == ""
    out = CliRunner().invoke(main, ["mcp", "--scope", "s", "--dsn", "host=/nonexistent port=1 dbname=x"])
    assert out.exit_code == 1 and out.stderr.startswith("error: cannot reach PostgreSQL") and out.stdout == ""


def test_import_findings_ledger_does_not_load_the_sdk() -> None:
    import subprocess

    code = "import sys, findings_ledger, findings_ledger.cli; print('mcp' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout == "False\n"


def test_read_prompt_and_verify_finding_close_the_loop(ledger_dsn: str,
                                                       ledger_conn: psycopg.Connection[Any]) -> None:
    scope = "mcp-verify"

    async def report(client: Client) -> Any:
        return [await client.call_tool("report_finding", {
            "finding_key": key, "title": title, "kind": "drift", "severity": severity, "paths": [path]})
            for key, title, severity, path in (
                ("F01", "app.py still registers night-shift", "high", "packages/af/af/app.py"),
                ("F02", "packages/nightshift/ does not exist", "medium", "packages/nightshift/"))]

    f1, f2 = (r.structured_content["finding_id"] for r in session(ledger_dsn, scope, report))
    # a merge touches F01's file: the shipped touch mode of drift flags it (it stays in the prompt, marked)
    fl.record_merge(ledger_conn, scope, "342b7a0b9ad4", ["packages/af/af/app.py"],
                    message="Move night-shift into its own package")

    async def verify(client: Client) -> Any:
        first = await client.call_tool("read_prompt", {})
        small = await client.call_tool("read_prompt", {"max_chars": 40})
        kept = await client.call_tool("verify_finding", {"finding_id": f1, "verdict": "still_true",
                                                         "evidence": "app.py:88 still calls add_command",
                                                         "verifier": "agent-7"})
        after = await client.call_tool("read_prompt", {"max_touches": 3})
        resolved = await client.call_tool("verify_finding", {"finding_id": f2, "verdict": "resolved",
                                                             "evidence": "packages/nightshift/ exists",
                                                             "verifier": "agent-7"})
        again = await client.call_tool("verify_finding", {"finding_id": f2, "verdict": "resolved",
                                                          "evidence": "x", "verifier": "agent-8"})
        last = await client.call_tool("read_prompt", {"kinds": ["drift"]})
        return first, small, kept, after, resolved, again, last

    first, small, kept, after, resolved, again, last = session(ledger_dsn, scope, verify)
    prompt = first.structured_content
    assert (prompt["included_count"], prompt["omitted_count"]) == (2, 0)
    assert "possibly resolved by 342b7a0b9ad4 (Move night-shift into its own package)" in prompt["prompt"]
    assert f"ledger.verify_finding({f1}," in prompt["prompt"]
    assert small.structured_content["included_count"] + small.structured_content["omitted_count"] == 2
    assert small.structured_content["omitted_count"] >= 1
    assert kept.structured_content["action"] == "verified_still_true"
    assert kept.structured_content["actor"] == "agent-7" and kept.structured_content["commit_sha"] == "342b7a0b9ad4"
    assert "possibly resolved by" not in after.structured_content["prompt"]  # the flag is cleared
    assert resolved.structured_content["action"] == "superseded" and resolved.structured_content["rule"] == "verified"
    assert again.is_error and "LD302: " in text(again)
    assert last.structured_content["included_count"] == 1 and f"(finding {f1})" in last.structured_content["prompt"]
    assert ledger_conn.execute(
        "SELECT f.finding_key, f.superseded_at IS NOT NULL, s.action, s.evidence FROM ledger.supersession s "
        "JOIN ledger.finding f ON f.id = s.finding_id WHERE s.scope = %s AND s.rule = 'verified' ORDER BY s.id",
        (scope,)).fetchall() == [
        ("F01", False, "verified_still_true", "app.py:88 still calls add_command"),
        ("F02", True, "superseded", "packages/nightshift/ exists")]


def test_read_prompt_of_an_unknown_scope_is_a_tool_error(ledger_dsn: str) -> None:
    async def steps(client: Client) -> Any:
        return await client.call_tool("read_prompt", {"max_chars": 100})

    result = session(ledger_dsn, "mcp-nobody-wrote-here", steps)
    assert result.is_error and "LD005: " in text(result) and "Traceback" not in text(result)
