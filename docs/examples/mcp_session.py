"""An agent's session with `findings-ledger mcp`, through the MCP SDK's own client (docs/mcp.md).

Run on a freshly migrated database: LEDGER_DSN=... .venv/bin/python docs/examples/mcp_session.py
It starts the server as an MCP client does (a subprocess speaking MCP on its stdin and stdout), records
what a service would (the scope's policy, a merge) with the Python API, and prints each tool call and
its result; times are left out of the results shown, and read_prompt's text is printed as the agent
reads it.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

import psycopg
from mcp import Client, StdioServerParameters

import findings_ledger as fl

DSN = os.environ["LEDGER_DSN"]
SCOPE = "spec-07"
# the console script next to this interpreter (.venv/bin/findings-ledger), as a client's configuration names it
SERVER = StdioServerParameters(command=str(Path(sys.executable).parent / "findings-ledger"),
                               args=["mcp", "--scope", SCOPE, "--dsn", DSN])
TIMES = {"requested_at", "lease_until", "answered_at", "created_at"}


async def call(client: Client, tool: str, arguments: dict) -> dict:
    print(f"> {tool} {json.dumps(arguments)}")
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        print(f"< error: {result.content[0].text}")
        return {}
    shown = result.structured_content
    if isinstance(shown.get("result"), list):
        shown = {"result": [{k: v for k, v in r.items() if k not in TIMES} for r in shown["result"]]}
    print(f"< {json.dumps({k: v for k, v in shown.items() if k not in TIMES and k != 'prompt'})}")
    return result.structured_content


async def session(steps) -> None:
    async with Client(SERVER) as client:
        await steps(client)


async def review(client: Client) -> None:
    tools = await client.list_tools()
    print("tools:", ", ".join(t.name for t in tools.tools))
    await call(client, "report_finding", {
        "finding_key": "F03", "kind": "drift", "severity": "high", "source": "drift-review:0",
        "title": "packages/af/af/app.py still registers night-shift",
        "resolved_when": {"file_lacks": {"path": "packages/af/af/app.py", "pattern": r"\bnight_shift\b"}}})
    await call(client, "report_finding", {
        "finding_key": "F02", "kind": "drift", "severity": "medium", "source": "drift-review:0",
        "title": "packages/nightshift/ does not exist", "paths": ["packages/nightshift/"]})
    await call(client, "report_finding", {
        "finding_key": "R12", "title": "The parser drops tab-indented lines", "paths": ["src/parse.py"]})
    await call(client, "report_finding", {
        "finding_key": "R13", "title": "Names with accents are rejected",
        "resolved_when": {"file_contains": {"path": "src/names.py", "pattern": r"\p{L}+"}}})
    await call(client, "claim_rechecks", {"verifier": "agent-7", "max": "three"})


async def verify(client: Client) -> None:
    prompt = await call(client, "read_prompt", {"max_chars": 2000})
    print(prompt["prompt"])
    await call(client, "verify_finding", {"finding_id": 2, "verdict": "resolved", "verifier": "agent-7",
                                          "evidence": "packages/nightshift/pyproject.toml and src/ exist"})
    claimed = await call(client, "claim_rechecks", {"verifier": "agent-7", "max": 5})
    request = claimed["result"][0]["id"]
    await call(client, "answer_recheck", {"request_id": request, "resolved": True, "verifier": "agent-7",
                                          "evidence": "src/parse.py:41 expands tabs before splitting"})
    await call(client, "answer_recheck", {"request_id": request, "resolved": False, "verifier": "agent-8",
                                          "evidence": "still broken"})


with psycopg.connect(DSN, autocommit=True) as conn:
    # the scope's policy: a touch of an unchecked review finding asks a verifier (drift: flagged, the default)
    fl.set_match_policy(conn, SCOPE, create=True, touch="recheck", touch_kind="review", path_supersede_kinds=["*"])
    asyncio.run(session(review))
    fl.record_merge(conn, SCOPE, "5be1c0de4a11", ["src/parse.py", "packages/nightshift/pyproject.toml"],
                    message="Expand tabs in the parser; start the nightshift package")
    asyncio.run(session(verify))
    # what the database holds now
    for key, rule, check in conn.execute("SELECT finding_key, supersede_rule, resolved_when FROM ledger.finding "
                                         "WHERE scope = %s ORDER BY id", (SCOPE,)).fetchall():
        print(f"{key}: {'retired by rule ' + rule if rule else 'active'}"
              + (f", check {json.dumps(check)}" if check else ""))
