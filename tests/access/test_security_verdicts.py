"""Who may give a verdict on a finding, and who reads the prompt text.

ledger.verify_finding supersedes findings and writes the audit as its owner
(SECURITY DEFINER): EXECUTE is granted to ledger_agent alone, the role of
the agents that read prompts and check the findings they were shown
(docs/security.md). ledger_writer, ledger_reader and ledger_admin get
permission denied and nothing is written. Under per-scope row-level
security an agent gives verdicts only in its own scopes (LD401).
ledger.read_prompt_text is a read like ledger.read_prompt_findings:
ledger_reader and ledger_admin.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import psycopg
import pytest
from support.security import as_role, counts

import findings_ledger as fl

OLD = datetime(2020, 1, 1, tzinfo=timezone.utc)


def flagged(conn: psycopg.Connection[Any], scope: str = "s") -> int:
    fid = fl.add_finding(conn, scope, "a.py is stale", paths=["a.py"], kind="drift", observed_at=OLD).id
    fl.record_merge(conn, scope, "abcd" * 10, paths=["a.py"], message="Touch a.py")
    return fid


@pytest.mark.parametrize("role", ["ledger_writer", "ledger_reader", "ledger_admin"])
def test_only_the_agent_role_may_give_a_verdict(ledger_conn: psycopg.Connection, role: str) -> None:
    fid = flagged(ledger_conn)
    before = counts(ledger_conn)
    with as_role(ledger_conn, role) as conn:
        for verdict in ("resolved", "still_true"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege,
                               match="permission denied for function verify_finding"):
                fl.verify_finding(conn, fid, verdict, "checked", "someone")
    assert counts(ledger_conn) == before
    with as_role(ledger_conn, "ledger_agent") as conn:
        assert fl.verify_finding(conn, fid, "resolved", "checked", "agent-1").action == "superseded"


def test_an_agent_gives_verdicts_only_in_its_scopes_under_row_level_security(ledger_conn: psycopg.Connection) -> None:
    mine = flagged(ledger_conn, "tenant-a")
    theirs = flagged(ledger_conn, "tenant-b")
    fl.enable_scope_rls(ledger_conn)
    before = counts(ledger_conn)
    with as_role(ledger_conn, "ledger_agent", scopes="tenant-a") as conn:
        with pytest.raises(fl.ScopeDenied, match="finding.scope 'tenant-b'"):
            fl.verify_finding(conn, theirs, "resolved", "checked", "agent-a")
    assert counts(ledger_conn) == before
    with as_role(ledger_conn, "ledger_agent", scopes="tenant-a") as conn:
        assert fl.verify_finding(conn, mine, "still_true", "checked", "agent-a").action == "verified_still_true"


@pytest.mark.parametrize(("role", "allowed"), [("ledger_reader", True), ("ledger_admin", True),
                                               ("ledger_writer", False), ("ledger_agent", False)])
def test_the_prompt_text_is_a_read_for_readers(ledger_conn: psycopg.Connection, role: str, allowed: bool) -> None:
    flagged(ledger_conn)
    with as_role(ledger_conn, role) as conn:
        if allowed:
            assert fl.read_prompt_text(conn, "s").prompt.startswith("[medium] a.py is stale")
        else:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                fl.read_prompt_text(conn, "s")
