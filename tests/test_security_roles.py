"""Least privilege (issue 7): the roles revision 0005_security creates, the
exact privileges each one holds, and that those privileges are enough for
its job and nothing more.

PRIVILEGES below is the contract, one line per grant; the test compares it
with the catalog. A later revision that adds a table or function adds its
lines here (or to NO_GRANTS): an unclassified ledger object fails the test.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from alembic import command
from security_helpers import ROLES, as_role

import findings_ledger as fl
from findings_ledger.api import alembic_config

WRITER_HELPERS = [
    "ledger._check_text(text,text,boolean,integer,boolean)",
    "ledger._check_scope_access(text,text)",
    "ledger._visible_scopes()",
    "ledger._scoped_paths(text,text[])",
    "ledger.normalize_path(text,text)",
    "ledger.normalize_paths(text[],text,integer)",
]

# role, privilege, object ("schema ledger", a relation, relation(column), or a function signature)
PRIVILEGES: list[tuple[str, str, str]] = [
    *[(role, "USAGE", "schema ledger") for role in ROLES],
    # ledger_writer: insert findings and merges, nothing else
    *[("ledger_writer", "EXECUTE", f) for f in WRITER_HELPERS],
    ("ledger_writer", "EXECUTE", "ledger._ensure_scope(text)"),
    ("ledger_writer", "EXECUTE", "ledger.add_finding(text,text,text,text[],text,text,text,text)"),
    ("ledger_writer", "EXECUTE", "ledger.record_merge(text,text,text[],text,text,timestamp with time zone)"),
    ("ledger_writer", "SELECT", "ledger.scope"),
    ("ledger_writer", "SELECT", "ledger.finding"),
    ("ledger_writer", "SELECT", "ledger.merge"),
    ("ledger_writer", "INSERT", "ledger.scope(scope)"),
    *[
        ("ledger_writer", "INSERT", f"ledger.finding({c})")
        for c in ("scope", "finding_key", "kind", "severity", "title", "description", "paths", "source", "created_at")
    ],
    *[
        ("ledger_writer", "INSERT", f"ledger.merge({c})")
        for c in ("scope", "commit_sha", "node_id", "message", "paths", "merged_at")
    ],
    # ledger_reader: active findings, history, audit
    *[("ledger_reader", "SELECT", t) for t in (
        "ledger.active_finding", "ledger.finding", "ledger.merge", "ledger.scope", "ledger.supersession")],
    ("ledger_reader", "EXECUTE", "ledger._visible_scopes()"),
    ("ledger_reader", "EXECUTE", "ledger._severity_rank(text)"),
    ("ledger_reader", "EXECUTE", "ledger.active_findings(text)"),
    ("ledger_reader", "EXECUTE", "ledger.read_audit(text,bigint,bigint)"),
    ("ledger_reader", "EXECUTE", "ledger.normalize_path(text,text)"),
    ("ledger_reader", "EXECUTE", "ledger.normalize_paths(text[],text,integer)"),
    # ledger_agent: task claims arrive with the claims revision
    ("ledger_agent", "EXECUTE", "ledger._visible_scopes()"),
    # ledger_admin: policy, reconcile, reading
    *[("ledger_admin", "EXECUTE", f) for f in WRITER_HELPERS],
    *[("ledger_admin", "SELECT", t) for t in (
        "ledger.active_finding", "ledger.finding", "ledger.merge", "ledger.scope", "ledger.supersession")],
    ("ledger_admin", "INSERT", "ledger.scope(scope)"),
    ("ledger_admin", "INSERT", "ledger.scope(hygiene_mode)"),
    ("ledger_admin", "UPDATE", "ledger.scope(hygiene_mode)"),
    ("ledger_admin", "EXECUTE", "ledger._severity_rank(text)"),
    ("ledger_admin", "EXECUTE", "ledger.active_findings(text)"),
    ("ledger_admin", "EXECUTE", "ledger.read_audit(text,bigint,bigint)"),
    ("ledger_admin", "EXECUTE", "ledger.set_hygiene_mode(text,text)"),
    ("ledger_admin", "EXECUTE", "ledger.reconcile(text)"),
]

#: Ledger objects no role (and not PUBLIC) may use directly, on purpose.
NO_GRANTS = [
    "ledger.alembic_version",
    "ledger._apply_merge(bigint)",  # only SECURITY DEFINER callers run it, as the owner
    "ledger._match_paths(text,text[])",
    "ledger.enable_scope_rls()",  # the owner's switch
    "ledger.disable_scope_rls()",
    "ledger.tg_finding__prepare()",  # trigger functions: EXECUTE is not checked when a trigger fires
    "ledger.tg_merge__prepare()",
    "ledger.tg_merge__supersede()",
    "ledger.tg_scope__prepare()",
    "ledger.tg_scoped__check_access()",
    "ledger.tg_supersession__append_only()",
]

ACTUAL = """
WITH grantee AS (
    SELECT oid, rolname::text AS name FROM pg_roles WHERE rolname = ANY (%(roles)s)
    UNION ALL SELECT 0, 'PUBLIC'
)
SELECT g.name, a.privilege_type, 'schema ledger'
  FROM pg_namespace n, aclexplode(n.nspacl) a JOIN grantee g ON g.oid = a.grantee
 WHERE n.nspname = 'ledger'
UNION ALL
SELECT g.name, a.privilege_type, c.oid::regclass::text
  FROM pg_class c, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a JOIN grantee g ON g.oid = a.grantee
 WHERE c.relnamespace = 'ledger'::regnamespace
UNION ALL
SELECT g.name, a.privilege_type, c.oid::regclass::text || '(' || att.attname || ')'
  FROM pg_class c JOIN pg_attribute att ON att.attrelid = c.oid, aclexplode(att.attacl) a
  JOIN grantee g ON g.oid = a.grantee
 WHERE c.relnamespace = 'ledger'::regnamespace
UNION ALL
SELECT g.name, a.privilege_type, p.oid::regprocedure::text
  FROM pg_proc p, aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a JOIN grantee g ON g.oid = a.grantee
 WHERE p.pronamespace = 'ledger'::regnamespace
"""

OBJECTS = """
SELECT c.oid::regclass::text FROM pg_class c
 WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
UNION ALL
SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace
"""


def actual_privileges(conn: psycopg.Connection[Any]) -> set[tuple[str, str, str]]:
    return {tuple(r) for r in conn.execute(ACTUAL, {"roles": list(ROLES)}).fetchall()}  # type: ignore[misc]


def test_roles_exist_nologin_without_password(ledger_conn: psycopg.Connection) -> None:
    rows = ledger_conn.execute(
        "SELECT rolname, rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication, "
        "rolpassword IS NULL FROM pg_authid WHERE rolname = ANY (%s) ORDER BY 1",
        (list(ROLES),),
    ).fetchall()
    assert rows == [(r, False, False, False, False, False, False, True) for r in sorted(ROLES)]


def test_privileges_are_exactly_the_documented_ones(ledger_conn: psycopg.Connection) -> None:
    actual = actual_privileges(ledger_conn)
    expected = set(PRIVILEGES)
    assert sorted(actual - expected) == [], "granted but not in PRIVILEGES"
    assert sorted(expected - actual) == [], "in PRIVILEGES but not granted"


def test_every_ledger_object_is_classified(ledger_conn: psycopg.Connection) -> None:
    objects = {r[0] for r in ledger_conn.execute(OBJECTS).fetchall()}
    named = {obj for _, _, obj in PRIVILEGES}
    classified = named | {obj.split("(")[0] for obj in named} | set(NO_GRANTS)
    unclassified = sorted(o for o in objects if o not in classified)
    assert unclassified == [], f"add these to PRIVILEGES or NO_GRANTS (and grant them in a revision): {unclassified}"


def test_no_privilege_for_public(ledger_conn: psycopg.Connection) -> None:
    assert sorted(p for p in actual_privileges(ledger_conn) if p[0] == "PUBLIC") == []


def test_security_definer_functions_pin_search_path(ledger_conn: psycopg.Connection) -> None:
    rows = ledger_conn.execute(
        "SELECT p.oid::regprocedure::text, p.proconfig FROM pg_proc p "
        "WHERE p.pronamespace = 'ledger'::regnamespace AND p.prosecdef ORDER BY 1"
    ).fetchall()
    assert [r[0] for r in rows] == [
        "ledger.reconcile(text)",
        "ledger.record_merge(text,text,text[],text,text,timestamp with time zone)",
        "ledger.tg_merge__supersede()",
    ]
    assert all(r[1] == ["search_path=pg_catalog, pg_temp"] for r in rows)


# --- what each role can do ----------------------------------------------------------------------


def test_writer_plain_insert_supersedes_and_audits(ledger_conn: psycopg.Connection) -> None:
    with as_role(ledger_conn, "ledger_writer") as conn:
        fid = conn.execute(
            "INSERT INTO ledger.finding (scope, title, kind, paths) VALUES ('s', 'a.py is stale', 'drift', "
            "'{src/a.py}') RETURNING id"
        ).fetchone()[0]
        with conn.cursor().copy("COPY ledger.finding (scope, title, kind, paths) FROM STDIN") as copy:
            copy.write_row(("s", "dir finding", "drift", ["src/"]))
        mid = conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES ('s', 'abcdef1', 'node-3', "
            "'{src/a.py}') ON CONFLICT (scope, commit_sha) DO NOTHING RETURNING id"
        ).fetchone()[0]
        result = fl.record_merge(conn, "s", "abcdef1", ["src/a.py"])  # redelivery, as the writer
    assert result.recorded is False and result.merge_id == mid and len(result.superseded) == 2
    rows = ledger_conn.execute(
        "SELECT id, superseded_by, superseded_by_merge_id, supersede_rule FROM ledger.finding ORDER BY id"
    ).fetchall()
    assert rows == [(fid, "node-3", mid, "path"), (fid + 1, "node-3", mid, "path")]
    audit = ledger_conn.execute("SELECT finding_id, merge_id, action FROM ledger.supersession ORDER BY id").fetchall()
    assert audit == [(fid, mid, "superseded"), (fid + 1, mid, "superseded")]


def test_writer_api_calls_work(ledger_conn: psycopg.Connection) -> None:
    with as_role(ledger_conn, "ledger_writer") as conn:
        f = fl.add_finding(conn, "s", "stale", paths=["./b.py:3"], kind="drift")
        r = fl.record_merge(conn, "s", "abcd", ["b.py"], node_id="n1")
    assert f.paths == ["b.py"]
    assert r.recorded and r.superseded == [f.id]


def test_reader_and_admin_api_calls_work(ledger_conn: psycopg.Connection) -> None:
    fid = fl.add_finding(ledger_conn, "s", "stale", paths=["b.py"], kind="drift").id
    mid = fl.record_merge(ledger_conn, "s", "abcd", ["b.py"]).merge_id
    fl.add_finding(ledger_conn, "s", "open", paths=["c.py"], kind="drift")
    with as_role(ledger_conn, "ledger_reader") as conn:
        assert [f.title for f in fl.active_findings(conn, "s")] == ["open"]
        assert [a.action for a in fl.read_audit(conn, "s", finding_id=fid)] == ["superseded"]
        assert [a.finding_id for a in fl.read_audit(conn, "s", merge_id=mid)] == [fid]
    with as_role(ledger_conn, "ledger_admin") as conn:
        assert fl.set_hygiene_mode(conn, "s", "dry") == "dry"
        assert fl.set_hygiene_mode(conn, "new-scope", "off") == "off"
        conn.execute("UPDATE ledger.scope SET hygiene_mode = 'on' WHERE scope = 's'")
        assert [f.title for f in fl.active_findings(conn, "s")] == ["open"]
    assert ledger_conn.execute("SELECT scope, hygiene_mode FROM ledger.scope ORDER BY 1").fetchall() == [
        ("new-scope", "off"), ("s", "on")]


DENIED = [
    # (role, statement): each must fail with 42501 insufficient_privilege
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, superseded_at) VALUES ('s', 't', now())"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, superseded_by) VALUES ('s', 't', 'me')"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, superseded_by_merge_id) VALUES ('s', 't', 1)"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, supersede_rule) VALUES ('s', 't', 'path')"),
    ("ledger_writer", "INSERT INTO ledger.merge (scope, commit_sha, processed) VALUES ('s', 'abcd', true)"),
    ("ledger_writer", "INSERT INTO ledger.merge (scope, commit_sha, recorded_at) VALUES ('s', 'abcd', now())"),
    ("ledger_writer", "UPDATE ledger.finding SET superseded_at = NULL, superseded_by = NULL"),
    ("ledger_writer", "UPDATE ledger.finding SET title = 'rewritten'"),
    ("ledger_writer", "DELETE FROM ledger.finding"),
    ("ledger_writer", "UPDATE ledger.merge SET processed = false"),
    ("ledger_writer", "INSERT INTO ledger.supersession (scope, action) VALUES ('s', 'superseded')"),
    ("ledger_writer", "SELECT count(*) FROM ledger.supersession"),
    ("ledger_writer", "INSERT INTO ledger.scope (scope, hygiene_mode) VALUES ('t', 'off')"),
    ("ledger_writer", "UPDATE ledger.scope SET hygiene_mode = 'off'"),
    ("ledger_writer", "SELECT ledger.set_hygiene_mode('s', 'off')"),
    ("ledger_writer", "SELECT * FROM ledger.reconcile('s')"),
    ("ledger_writer", "SELECT ledger._apply_merge(1)"),
    ("ledger_writer", "SELECT * FROM ledger._match_paths('s', '{a.py}')"),
    ("ledger_writer", "SELECT * FROM ledger.enable_scope_rls()"),
    ("ledger_writer", "SELECT * FROM ledger.read_audit('s')"),
    ("ledger_reader", "INSERT INTO ledger.finding (scope, title) VALUES ('s', 't')"),
    ("ledger_reader", "INSERT INTO ledger.merge (scope, commit_sha) VALUES ('s', 'abcd')"),
    ("ledger_reader", "SELECT * FROM ledger.record_merge('s', 'abcd')"),
    ("ledger_reader", "SELECT * FROM ledger.add_finding('s', 't')"),
    ("ledger_reader", "SELECT ledger.set_hygiene_mode('s', 'off')"),
    ("ledger_reader", "UPDATE ledger.scope SET hygiene_mode = 'off'"),
    ("ledger_reader", "SELECT * FROM ledger.reconcile('s')"),
    ("ledger_agent", "SELECT count(*) FROM ledger.finding"),
    ("ledger_agent", "SELECT count(*) FROM ledger.active_finding"),
    ("ledger_agent", "SELECT * FROM ledger.active_findings('s')"),
    ("ledger_agent", "INSERT INTO ledger.merge (scope, commit_sha) VALUES ('s', 'abcd')"),
    ("ledger_admin", "INSERT INTO ledger.finding (scope, title) VALUES ('s', 't')"),
    ("ledger_admin", "INSERT INTO ledger.merge (scope, commit_sha) VALUES ('s', 'abcd')"),
    ("ledger_admin", "UPDATE ledger.finding SET superseded_at = NULL"),
    ("ledger_admin", "UPDATE ledger.scope SET scope = 'renamed'"),
    ("ledger_admin", "DELETE FROM ledger.scope"),
    ("ledger_admin", "SELECT * FROM ledger.disable_scope_rls()"),
]


@pytest.mark.parametrize(("role", "statement"), DENIED, ids=[f"{r}:{s[:60]}" for r, s in DENIED])
def test_role_is_denied(ledger_conn: psycopg.Connection, role: str, statement: str) -> None:
    fl.add_finding(ledger_conn, "s", "a finding", paths=["a.py"], kind="drift")
    fl.record_merge(ledger_conn, "s", "1234", ["z.py"])
    with as_role(ledger_conn, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)


def test_downgrade_and_upgrade_again(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """Downgrade gives the foundation back (no policies, no definer, PUBLIC may
    execute again, no privilege left for the roles in this database) and keeps
    the roles, which other databases of the cluster (the test template) use."""
    cfg = alembic_config(ledger_dsn)
    command.downgrade(cfg, "0001_foundation")
    assert ledger_conn.execute("SELECT count(*) FROM pg_policy").fetchone() == (0,)
    assert ledger_conn.execute(
        "SELECT count(*) FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace AND prosecdef").fetchone() == (0,)
    assert {p for p in actual_privileges(ledger_conn) if p[0] != "PUBLIC"} == set()
    assert ("PUBLIC", "EXECUTE", "ledger.record_merge(text,text,text[],text,text,timestamp with time zone)") in \
        actual_privileges(ledger_conn)
    assert ledger_conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = ANY (%s)", (list(ROLES),)).fetchone() \
        == (4,)
    fid = fl.add_finding(ledger_conn, "s", "x", paths=["a.py"], kind="drift").id
    assert fl.record_merge(ledger_conn, "s", "abcd", ["a.py"]).superseded == [fid]
    command.upgrade(cfg, "head")
    assert actual_privileges(ledger_conn) == set(PRIVILEGES)
