"""The ledger as an MCP server for agents (``findings-ledger mcp --scope S``),
built with the official MCP Python SDK (the optional extra ``mcp``:
``pip install 'findings-ledger[mcp]'``).

One scope per server, fixed when it starts; each tool is exactly one call
of this package's API, so one statement calling one stored function, and
the database decides everything (validation, locking, the audit):

``read_prompt``
    the prompt findings under a budget (``ledger.read_prompt_text``):
    ``{prompt, included_count, included_chars, omitted_count, omitted_chars}``;
``verify_finding``
    the verdict of an agent on a finding its prompt showed
    (``ledger.verify_finding``: ``resolved`` or ``still_true``, with its
    evidence and the verifier's name): the audit row written;
``report_finding``
    report a finding, with its check ``resolved_when`` (``ledger.report_finding``;
    the check is validated, and a pattern in another regular-expression
    dialect rewritten or refused, by the database as for every writer);
``claim_rechecks`` / ``answer_recheck``
    as a verifier, claim the scope's open recheck requests under a lease
    (``ledger.claim_rechecks``) and answer one (``ledger.answer_recheck``).

A ledger error is a tool error (``isError``) whose text is the SQLSTATE and
the ledger's message (``LD105: invalid finding.resolved_when...``), never a
traceback; an argument of the wrong type or a missing one is a tool error
too (the SDK checks each call against the tool's input schema, derived from
the type hints below). Results are JSON objects (structured content).

This module imports ``mcp``; ``import findings_ledger`` does not import
this module (the ``mcp`` command does, when it runs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

import psycopg
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from . import checks
from . import findings as lifecycle
from .errors import LedgerError

T = TypeVar("T")

#: What the server tells the agent about itself (the MCP ``instructions``).
INSTRUCTIONS = (
    "A findings ledger: the review and drift findings of scope {scope}. read_prompt gives the findings to keep "
    "in mind, within a character budget; a finding a merge touched says so, with the commit: check it against "
    "the code and give your verdict with verify_finding (resolved or still_true, with the evidence you saw). "
    "report_finding records a new finding; give it a check (resolved_when) when you can say what proves it "
    "fixed. A verifier claims recheck requests with claim_rechecks and answers each with answer_recheck."
)


def _plain(value: Any) -> Any:
    """A result as JSON: dataclasses as objects, times as ISO 8601 strings."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    return value


@contextmanager
def _ledger_errors() -> Iterator[None]:
    """A ledger or database error as a tool error: ``<SQLSTATE>: <message>``
    (and the server's hint), one line, no traceback."""
    try:
        yield
    except LedgerError as exc:
        hint = f" (hint: {exc.hint})" if exc.hint else ""
        raise ToolError(f"{exc.sqlstate}: {exc}{hint}") from None
    except psycopg.Error as exc:
        message = exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)
        raise ToolError(f"{exc.sqlstate or 'database error'}: {' '.join(message.split())}") from None


def _call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> Any:
    with _ledger_errors():
        return _plain(fn(*args, **kwargs))


def build_server(conn: psycopg.Connection[Any], scope: str) -> MCPServer:
    """The MCP server of ``scope`` on ``conn`` (autocommit: each tool call
    is its own transaction). :func:`serve` runs it over stdio."""
    server = MCPServer("findings-ledger", instructions=INSTRUCTIONS.format(scope=scope), log_level="WARNING")

    @server.tool()
    def read_prompt(
        max_chars: Annotated[int | None, Field(description="the character budget (None: all)")] = None,
        kinds: Annotated[list[str] | None, Field(description="only these kinds (drift, review, ...)")] = None,
        max_touches: Annotated[int, Field(description="touches listed per flagged finding")] = 3,
    ) -> dict[str, Any]:
        """The findings of this scope to put in a prompt, as text, most
        important first, within max_chars (ledger.read_prompt_text): the
        prompt and how many findings and characters it includes and omits.
        A finding a merge touched lists the commit and how to verify it."""
        return _call(lifecycle.read_prompt_text, conn, scope, max_chars, kinds, max_touches)

    @server.tool()
    def verify_finding(
        finding_id: Annotated[int, Field(description="the finding's id, as the prompt names it")],
        verdict: Annotated[Literal["resolved", "still_true"], Field(description="what the code shows")],
        evidence: Annotated[str, Field(description="what you saw: file, line, the code")],
        verifier: Annotated[str, Field(description="who judges: your agent's name")],
    ) -> dict[str, Any]:
        """Give your verdict on a finding your prompt showed, after checking it
        against the code (ledger.verify_finding): resolved retires it,
        still_true keeps it and clears its touch flag. Returns the audit row."""
        return _call(lifecycle.verify_finding, conn, finding_id, verdict, evidence, verifier)

    @server.tool()
    def report_finding(
        finding_key: Annotated[str, Field(description="a stable key: the same problem reported again gets it again")],
        title: Annotated[str, Field(description="one line: what is wrong")],
        description: Annotated[str | None, Field(description="details")] = None,
        paths: Annotated[list[str] | None, Field(description="repository paths; a directory ends in /")] = None,
        kind: Annotated[str, Field(description="drift, review, ...")] = "review",
        severity: Annotated[str, Field(description="critical, high, medium, low or info")] = "medium",
        source: Annotated[str | None, Field(description="who reports: your agent's name or node id")] = None,
        task_group: Annotated[str | None, Field(description="the task group it was observed at")] = None,
        resolved_when: Annotated[dict[str, Any] | None, Field(
            description='the check that proves it fixed, e.g. {"path_exists": "pkg/"} or {"file_lacks": '
                        '{"path": "a.py", "pattern": "PostgreSQL regex"}}; all / any combine checks')] = None,
    ) -> dict[str, Any]:
        """Report a finding of this scope (ledger.report_finding): a new one is
        recorded, a known key is counted again (or reopened when it was
        superseded). Returns finding_id, outcome, state and the counters."""
        return _call(lifecycle.report_finding, conn, scope, finding_key, title, description=description,
                     paths=paths or (), kind=kind, severity=severity, source=source, task_group=task_group,
                     resolved_when=resolved_when)

    @server.tool()
    def claim_rechecks(
        verifier: Annotated[str, Field(description="who claims: your agent's name")],
        max: Annotated[int, Field(description="at most this many requests (1-1000)")] = 10,
        lease_seconds: Annotated[int, Field(description="how long the claim holds")] = 600,
    ) -> list[dict[str, Any]]:
        """Claim open recheck requests of this scope (ledger.claim_rechecks):
        findings a merge touched, to be checked against the code, each with
        the finding (title, description, paths, kind, severity) and the
        touching commit (commit_sha, subject); each is yours until its lease
        ends. Answer each with answer_recheck."""
        return _call(checks.claim_rechecks, conn, scope, verifier, max, lease=timedelta(seconds=lease_seconds))

    @server.tool()
    def answer_recheck(
        request_id: Annotated[int, Field(description="the claimed request's id")],
        resolved: Annotated[bool, Field(description="true: the finding is fixed; false: it still holds")],
        evidence: Annotated[str, Field(description="what you saw: file, line, the code")],
        verifier: Annotated[str, Field(description="the verifier that claimed it")],
    ) -> dict[str, Any]:
        """Answer a recheck request you claimed (ledger.answer_recheck):
        resolved retires the finding (audited with your evidence), not
        resolved keeps it. Returns the request as answered."""
        return _call(checks.answer_recheck, conn, request_id, resolved, evidence, verifier=verifier)

    return server


def serve(conn: psycopg.Connection[Any], scope: str) -> None:
    """Serve ``scope`` over stdio until the client closes the stream."""
    build_server(conn, scope).run("stdio")
