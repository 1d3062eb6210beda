"""The ``mcp`` verb: the ledger as an MCP server for agents, over stdio.

``findings-ledger mcp --scope S [--dsn ...]``
    serve the tools of :mod:`findings_ledger.mcp_server` for scope S on
    standard input and output until the client closes them (an MCP client
    starts the command). Needs the optional extra ``mcp``
    (``pip install 'findings-ledger[mcp]'``); without it, one ``error:``
    line. The SDK is imported here, when the verb runs, never by
    ``import findings_ledger``.
"""

from __future__ import annotations

import click

from .helpers import connect, dsn_option, user_errors


@click.command("mcp")
@dsn_option
@click.option("--scope", required=True, help="the scope whose findings the tools read and write")
@user_errors
def mcp_command(dsn: str | None, scope: str) -> None:
    """Serve the ledger to an agent over stdio (the Model Context
    Protocol): read_prompt, verify_finding, report_finding,
    claim_rechecks and answer_recheck, each one stored-function call in
    SCOPE. Standard output carries the protocol only."""
    try:
        from .. import mcp_server
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("mcp", "pydantic", "mcp_types"):
            raise
        raise ValueError("the mcp verb needs the MCP SDK: pip install 'findings-ledger[mcp]'") from None
    if not scope.strip():
        raise ValueError("--scope is blank: give the scope whose findings the tools read and write")
    with connect(dsn) as conn:
        mcp_server.serve(conn, scope)


#: The commands :mod:`findings_ledger.cli` adds to its group.
COMMANDS = [mcp_command]
