"""Optional per-scope row-level security: once a deployment runs
ledger.enable_scope_rls(), a connection sees and writes only the scopes named
in its session setting ledger.scopes. One tenant cannot read another's
findings, merges, scopes or audit, nor retire its findings: a merge into
another scope is refused (LD401), a merge in its own scope never reaches
another scope's findings, policy and reconcile are refused too."""

from __future__ import annotations

import psycopg
import pytest
from support.security import as_role, counts
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl


@pytest.fixture
def tenants(ledger_conn: psycopg.Connection) -> psycopg.Connection:
    """Scopes 'tenant-a' and 'tenant-b', each with a finding on src/a.py and
    one merge on docs/, then per-scope row-level security turned on."""
    for scope in ("tenant-a", "tenant-b"):
        retire_drift_on_touch(ledger_conn, scope)  # the path rule as such on the drift findings
        fl.add_finding(ledger_conn, scope, f"{scope}: a.py is stale", paths=["src/a.py"], kind="drift")
        fl.add_finding(ledger_conn, scope, f"{scope}: docs", paths=["docs/"], kind="drift")
        fl.record_merge(ledger_conn, scope, "d0c5" + ("a" if scope == "tenant-a" else "b"), ["docs/x.md"])
        keyed = fl.report_finding(ledger_conn, scope, f"{scope}-k1", f"{scope}: keyed", paths=["lib/"]).finding_id
        fl.record_injection(ledger_conn, f"session-{scope}", [keyed])
        issue = fl.add_issue(ledger_conn, scope, f"{scope}: an issue")
        fl.enqueue_task(ledger_conn, issue.id, "agent-1", "rt-shared")
    assert fl.enable_scope_rls(ledger_conn) == TABLES
    return ledger_conn


#: Every table with a scope_isolation policy, in creation order.
TABLES = ["ledger.scope", "ledger.merge", "ledger.finding", "ledger.supersession", "ledger.issue",
          "ledger.agent_task", "ledger.injection", "ledger.scope_active_total", "ledger.file_state_request",
          "ledger.recheck_request"]


def ids(conn: psycopg.Connection, table: str, scope: str) -> list[int]:
    """Ids of a table's rows of ``scope`` (read as the owner: every scope)."""
    where = {"agent_task": "issue_id IN (SELECT id FROM ledger.issue WHERE scope = %s)",
             "injection": "finding_id IN (SELECT id FROM ledger.finding WHERE scope = %s)"}.get(table, "scope = %s")
    column = "finding_id" if table == "injection" else "id"
    return [r[0] for r in conn.execute(f"SELECT {column} FROM ledger.{table} WHERE {where} ORDER BY 1", (scope,))]


MERGE_INTO_B = "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('tenant-b', 'abcd', '{src/a.py}')"


def active_state(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute("SELECT id, scope, superseded_at IS NULL FROM ledger.finding ORDER BY id").fetchall()


@pytest.mark.parametrize("role", ["ledger_reader", "ledger_writer", "ledger_admin"])
def test_a_tenant_reads_only_its_scopes(tenants: psycopg.Connection, role: str) -> None:
    b_finding = tenants.execute("SELECT min(id) FROM ledger.finding WHERE scope = 'tenant-b'").fetchone()[0]
    with as_role(tenants, role, scopes="tenant-a") as conn:
        for table in ("scope", "finding", "merge"):
            assert conn.execute(f"SELECT DISTINCT scope FROM ledger.{table}").fetchall() == [("tenant-a",)]
        if role != "ledger_writer":
            assert conn.execute("SELECT DISTINCT scope FROM ledger.supersession").fetchall() == [("tenant-a",)]
            assert conn.execute("SELECT DISTINCT scope FROM ledger.active_finding").fetchall() == [("tenant-a",)]
            assert {f.scope for f in fl.active_findings(conn, "tenant-a")} == {"tenant-a"}
            with pytest.raises(fl.NotFound):
                fl.active_findings(conn, "tenant-b")
            with pytest.raises(fl.NotFound):
                fl.read_audit(conn, "tenant-b")
            with pytest.raises(fl.NotFound):
                fl.read_audit(conn, "tenant-a", finding_id=b_finding)


def test_a_tenant_cannot_retire_another_tenants_findings(tenants: psycopg.Connection) -> None:
    before, state = counts(tenants), active_state(tenants)
    with as_role(tenants, "ledger_writer", scopes="tenant-a") as conn:
        with pytest.raises(psycopg.Error) as info:
            conn.execute(MERGE_INTO_B)
        assert info.value.sqlstate == "LD401" and "merge.scope" in info.value.diag.message_primary
        with pytest.raises(fl.ScopeDenied) as denied:
            fl.record_merge(conn, "tenant-b", "abcd", ["src/a.py"])
        assert "merge.scope" in str(denied.value) and "tenant-b" in str(denied.value)
        with pytest.raises(fl.ScopeDenied):
            fl.record_merge(conn, " tenant-b ", "abcd", ["src/a.py"])  # trimmed the way the trigger stores it
        with pytest.raises(fl.ScopeDenied):  # the batch form, SECURITY DEFINER like record_merge
            fl.record_merges(conn, "tenant-b", [{"commit_sha": "abcd", "paths": ["src/a.py"]}])
        with pytest.raises(fl.ScopeDenied):
            fl.add_finding(conn, "tenant-b", "planted", paths=["src/"])
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE ledger.finding SET superseded_at = now() WHERE scope = 'tenant-b'")
    assert counts(tenants) == before and active_state(tenants) == state
    # the same paths in its own scope retire only its own finding
    with as_role(tenants, "ledger_writer", scopes="tenant-a") as conn:
        result = fl.record_merge(conn, "tenant-a", "abcd", ["src/a.py"])
    a_id = tenants.execute("SELECT id FROM ledger.finding WHERE scope = 'tenant-a' AND paths = '{src/a.py}'").fetchone()
    assert result.superseded == [a_id[0]]
    assert [s for s in active_state(tenants) if not s[2]] == [(a_id[0], "tenant-a", False)] + [
        s for s in state if not s[2]]


def test_policy_and_reconcile_are_refused_for_another_scope(tenants: psycopg.Connection) -> None:
    with as_role(tenants, "ledger_admin", scopes="tenant-a") as conn:
        with pytest.raises(fl.ScopeDenied):
            fl.set_hygiene_mode(conn, "tenant-b", "off")
        assert conn.execute("UPDATE ledger.scope SET hygiene_mode = 'off' WHERE scope = 'tenant-b'").rowcount == 0
        with pytest.raises(fl.ScopeDenied):
            fl.reconcile(conn, "tenant-b")
        assert fl.set_hygiene_mode(conn, "tenant-a", "dry") == "dry"
    assert tenants.execute("SELECT scope, hygiene_mode FROM ledger.scope ORDER BY 1").fetchall() == [
        ("tenant-a", "dry"), ("tenant-b", "on")]


def test_unset_setting_means_no_scope(tenants: psycopg.Connection) -> None:
    """Fail closed: a connection that forgot to name its scopes sees nothing
    and may write nowhere."""
    with as_role(tenants, "ledger_writer") as conn:
        assert conn.execute("SELECT count(*) FROM ledger.finding").fetchone() == (0,)
        with pytest.raises(fl.ScopeDenied):
            fl.add_finding(conn, "tenant-a", "x")
        with conn.transaction():
            fl.set_scopes(conn, [])
            with pytest.raises(fl.ScopeDenied):
                fl.add_finding(conn, "tenant-a", "x")


def test_several_scopes_and_new_scopes(tenants: psycopg.Connection) -> None:
    with as_role(tenants, "ledger_writer") as conn:
        with pytest.warns(fl.SessionScopesWarning):
            fl.set_scopes(conn, ["tenant-a", "tenant-b", "tenant-c"], session=True)
        assert conn.execute("SELECT count(DISTINCT scope) FROM ledger.finding").fetchone() == (2,)
        f = fl.add_finding(conn, "tenant-c", "new tenant's first finding", paths=["x.py"])
        with pytest.raises(ValueError):
            fl.set_scopes(conn, ["a,b"])
    assert f.scope == "tenant-c"
    assert tenants.execute("SELECT hygiene_mode FROM ledger.scope WHERE scope = 'tenant-c'").fetchone() == ("on",)


def test_the_owner_reads_everything_but_writes_through_the_setting(tenants: psycopg.Connection) -> None:
    """Row-level security does not apply to the table owner (PostgreSQL's
    rule), so the DBA sees every scope; the LD401 check applies to every
    role, so the DBA names the scope it writes into too."""
    assert tenants.execute("SELECT count(DISTINCT scope) FROM ledger.finding").fetchone() == (2,)
    with pytest.raises(fl.ScopeDenied):
        fl.add_finding(tenants, "tenant-a", "owner without setting")
    with pytest.warns(fl.SessionScopesWarning):
        fl.set_scopes(tenants, ["tenant-a"], session=True)
    assert fl.add_finding(tenants, "tenant-a", "owner with setting").scope == "tenant-a"
    tenants.execute("RESET ledger.scopes")


def test_policies_hold_without_the_ld401_triggers(tenants: psycopg.Connection) -> None:
    """Defence in depth: with the _050_scope_access triggers disabled, the
    policies' WITH CHECK still refuses the write (42501)."""
    for table in ("finding", "merge", "scope", "issue"):
        tenants.execute(f"ALTER TABLE ledger.{table} DISABLE TRIGGER _050_scope_access")
    before = counts(tenants)
    with as_role(tenants, "ledger_writer", scopes="tenant-a") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(MERGE_INTO_B)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO ledger.finding (scope, title) VALUES ('tenant-new', 'x')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO ledger.issue (scope, title) VALUES ('tenant-b', 'x')")
    assert counts(tenants) == before


def test_disable_turns_it_off(tenants: psycopg.Connection) -> None:
    assert fl.disable_scope_rls(tenants) == TABLES
    with as_role(tenants, "ledger_writer") as conn:
        assert conn.execute("SELECT count(DISTINCT scope) FROM ledger.finding").fetchone() == (2,)
        assert fl.add_finding(conn, "tenant-b", "no longer refused").scope == "tenant-b"
    with as_role(tenants, "ledger_writer"), pytest.raises(psycopg.errors.InsufficientPrivilege):
        fl.enable_scope_rls(tenants)


# --- claims, lifecycle and matching under per-scope row-level security -------------------------


@pytest.mark.parametrize("role", ["ledger_reader", "ledger_admin"])
def test_a_tenant_reads_only_its_issues_tasks_lifecycle_and_injections(tenants: psycopg.Connection,
                                                                        role: str) -> None:
    b_finding = ids(tenants, "finding", "tenant-b")[0]
    with as_role(tenants, role, scopes="tenant-a") as conn:
        for table in ("issue", "agent_task", "injection"):
            seen = [r[0] for r in conn.execute(
                f"SELECT {'finding_id' if table == 'injection' else 'id'} FROM ledger.{table} ORDER BY 1")]
            assert seen == ids(tenants, table, "tenant-a"), table
        assert conn.execute("SELECT DISTINCT scope FROM ledger.finding_lifecycle").fetchall() == [("tenant-a",)]
        with pytest.raises(fl.NotFound):
            fl.read_finding(conn, b_finding)
        with pytest.raises(fl.NotFound):
            fl.read_history(conn, b_finding)
        with pytest.raises(fl.NotFound):
            fl.read_injections(conn, finding_id=b_finding)
        assert fl.read_injections(conn, session_id="session-tenant-b") == []
        with pytest.raises(fl.NotFound):
            fl.measure_convergence(conn, "session-tenant-b")
        with pytest.raises(fl.NotFound):
            fl.read_prompt_findings(conn, "tenant-b")
        assert fl.read_prompt_findings(conn, "tenant-a").included_count == 2


def test_an_agent_claims_and_runs_only_its_tenants_tasks(tenants: psycopg.Connection) -> None:
    a_task, b_task = ids(tenants, "agent_task", "tenant-a")[0], ids(tenants, "agent_task", "tenant-b")[0]
    with as_role(tenants, "ledger_agent", scopes="tenant-b") as conn:
        claim = fl.claim_task(conn, "rt-shared")  # tenant-a's task is older (lower id) and queued too
        assert claim is not None and claim.task_id == b_task
        assert fl.claim_task(conn, "rt-shared") is None
        for call in (lambda: fl.start_task(conn, a_task), lambda: fl.cancel_task(conn, a_task),
                     lambda: fl.requeue_task(conn, a_task), lambda: fl.fail_task(conn, a_task, "x"),
                     lambda: fl.complete_task(conn, a_task)):
            with pytest.raises(fl.NotFound):
                call()
    assert tenants.execute("SELECT id, status FROM ledger.agent_task ORDER BY id").fetchall() == [
        (a_task, "queued"), (b_task, "dispatched")]


def test_a_writer_cannot_file_issues_or_tasks_for_another_tenant(tenants: psycopg.Connection) -> None:
    b_issue = ids(tenants, "issue", "tenant-b")[0]
    before = counts(tenants)
    with as_role(tenants, "ledger_writer", scopes="tenant-a") as conn:
        with pytest.raises(fl.ScopeDenied):
            fl.add_issue(conn, "tenant-b", "planted")
        with pytest.raises(fl.NotFound):
            fl.enqueue_task(conn, b_issue, "agent-1", "rt-shared")
        assert conn.execute("UPDATE ledger.issue SET title = 'rewritten' WHERE id = %s", (b_issue,)).rowcount == 0
    assert counts(tenants) == before
    assert tenants.execute("SELECT title FROM ledger.issue WHERE id = %s", (b_issue,)).fetchone() == (
        "tenant-b: an issue",)


def test_lifecycle_and_matching_calls_cannot_reach_another_tenant(tenants: psycopg.Connection) -> None:
    b_keyed, b_docs = ids(tenants, "injection", "tenant-b")[0], ids(tenants, "finding", "tenant-b")[1]
    before, state = counts(tenants), active_state(tenants)
    with as_role(tenants, "ledger_writer", scopes="tenant-a") as conn:
        for call in (
            lambda: fl.report_finding(conn, "tenant-b", "tenant-b-k1", "again"),
            lambda: fl.report_finding(conn, "tenant-b", "new-key", "planted"),
            lambda: fl.replace_findings(conn, "tenant-b", "run-x", []),
            lambda: fl.import_finding(conn, "tenant-b", "planted", slug="planted"),
        ):
            with pytest.raises(fl.ScopeDenied):
                call()
        with pytest.raises(fl.NotFound):
            fl.record_injection(conn, "session-x", [b_keyed])
        # tenant-a's own merge names tenant-b's finding key and reverts its commit: nothing there moves
        fl.record_merge(conn, "tenant-a", "beef01", message="Fixes tenant-b-k1\n\nThis reverts commit d0c5b.")
    with as_role(tenants, "ledger_admin", scopes="tenant-a") as conn:
        for call in (lambda: fl.dismiss_finding(conn, b_keyed, "accepted", "mallory", "x"),
                     lambda: fl.restore_finding(conn, b_docs, "mallory", "x")):
            with pytest.raises(fl.NotFound):
                call()
        with pytest.raises(fl.ScopeDenied):
            fl.set_match_policy(conn, "tenant-b", enabled_rules=[])
    after = counts(tenants)
    assert {t: after[t] - before[t] for t in after} == {**{t: 0 for t in after}, "merge": 1, "supersession": 1}
    assert active_state(tenants) == state
    assert tenants.execute("SELECT action FROM ledger.supersession ORDER BY id DESC LIMIT 1").fetchone() == (
        "revert_unknown",)
