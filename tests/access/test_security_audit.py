"""The audit (ledger.supersession) is append-only for everyone but the table
owner: the ledger roles have no UPDATE, DELETE or TRUNCATE
privilege (42501), and should a deployment grant one by mistake, the
_010_append_only / _011_append_only_truncate triggers still refuse (LD402).
The owner may rewrite it (retention, repair)."""

from __future__ import annotations

import psycopg
import pytest
from support.security import ROLES, as_role, ensure_login_role
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s")

REWRITES = [
    "UPDATE ledger.supersession SET action = 'forged'",
    "UPDATE ledger.supersession SET reason = 'hidden' WHERE finding_id IS NOT NULL",
    "DELETE FROM ledger.supersession",
    "TRUNCATE ledger.supersession",
]


def audit_rows(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute("SELECT id, finding_id, action FROM ledger.supersession ORDER BY id").fetchall()


def audited(conn: psycopg.Connection) -> list[tuple]:
    fid = fl.add_finding(conn, "s", "stale", paths=["a.py"], kind="drift").id
    fl.record_merge(conn, "s", "abcd", ["a.py"])
    rows = audit_rows(conn)
    assert rows and rows[0][1:] == (fid, "superseded")
    return rows


@pytest.mark.parametrize("role", ["ledger_writer", "ledger_reader", "ledger_admin", "ledger_agent"])
@pytest.mark.parametrize("statement", REWRITES)
def test_ledger_roles_have_no_privilege_to_rewrite_the_audit(
    ledger_conn: psycopg.Connection, role: str, statement: str
) -> None:
    before = audited(ledger_conn)
    with as_role(ledger_conn, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert audit_rows(ledger_conn) == before


@pytest.mark.parametrize("statement", REWRITES)
def test_trigger_refuses_even_when_privileges_were_granted_by_mistake(
    ledger_conn: psycopg.Connection, statement: str
) -> None:
    """A misconfigured deployment: a role member of every ledger role that was
    also granted UPDATE, DELETE and TRUNCATE on the audit. The triggers hold."""
    before = audited(ledger_conn)
    ensure_login_role(ledger_conn, "ledger_test_careless", *ROLES)
    ledger_conn.execute("GRANT UPDATE, DELETE, TRUNCATE ON ledger.supersession TO ledger_test_careless")
    try:
        with as_role(ledger_conn, "ledger_test_careless") as conn, pytest.raises(fl.AuditAppendOnly) as info:
            with fl.errors.translate():
                conn.execute(statement)
        assert info.value.sqlstate == "LD402"
        assert "ledger.supersession" in str(info.value)
    finally:
        ledger_conn.execute("REVOKE ALL ON ledger.supersession FROM ledger_test_careless")
    assert audit_rows(ledger_conn) == before


def test_the_owner_may_rewrite_for_retention(ledger_conn: psycopg.Connection) -> None:
    audited(ledger_conn)
    ledger_conn.execute("UPDATE ledger.supersession SET reason = 'retention review'")
    assert ledger_conn.execute("SELECT DISTINCT reason FROM ledger.supersession").fetchall() == [("retention review",)]
    ledger_conn.execute("DELETE FROM ledger.supersession")
    ledger_conn.execute("TRUNCATE ledger.supersession")
    assert ledger_conn.execute("SELECT count(*) FROM ledger.supersession").fetchone() == (0,)


def test_appending_still_works_for_the_ledger_itself(ledger_conn: psycopg.Connection) -> None:
    """The triggers refuse changes, not inserts: a writer's merge still audits."""
    fid = fl.add_finding(ledger_conn, "s", "stale", paths=["b.py"], kind="drift").id
    with as_role(ledger_conn, "ledger_writer") as conn:
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'beef', '{b.py}')")
    assert ledger_conn.execute("SELECT finding_id, action FROM ledger.supersession").fetchall() == [
        (fid, "superseded")]
