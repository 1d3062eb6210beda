"""Least privilege: the roles the baseline creates (sql/access/roles.sql), the
exact privileges each one holds, and that those privileges are enough for
its job and nothing more.

PRIVILEGES below is the contract, one line per grant; the test compares it
with the catalog. A later revision that adds a table or function adds its
lines here (or to NO_GRANTS): an unclassified ledger object fails the test.
"""

from __future__ import annotations

import re

import psycopg
import pytest
from alembic import command
from support.migrations import below_baseline
from support.security import ROLES, actual_privileges, as_role
from support.touch_policy import retire_drift_on_touch

import findings_ledger as fl
from findings_ledger.api import alembic_config

#: Helpers the BEFORE triggers call with the rights of whoever writes a row
#: (scope rows are written by writers, on first use, and by the admin).
ROW_HELPERS = [
    "ledger._check_text(text,text,boolean,integer,boolean)",
    "ledger._check_scope(text,text)",
    "ledger._unicode_class(text)",  # also normalize_path's and workspace_scope's
    "ledger._check_scope_access(text,text)",
    "ledger._scope_visible(text)",
    "ledger._normalize_branch(text,text)",
    "ledger._text_kept(text,integer)",  # the triggers' fast paths (inlined: EXECUTE is still checked)
    "ledger._scope_kept(text)",
    "ledger._anchors_kept(jsonb,text[])",  # the finding trigger's anchors, and _100_prepare_update's WHEN
    "ledger._check_merge_changes(text[],text[],text[],jsonb)",  # a merge's change kinds off the fast path
]
#: What every role that reads finds useful: pure functions and the lifecycle reads.
READS = [
    "ledger._severity_rank(text)",
    "ledger._finding_state(timestamp with time zone,timestamp with time zone)",
    "ledger.active_findings(text)",
    "ledger.read_audit(text,bigint,bigint)",
    "ledger.pending_file_states(text)",
    "ledger.read_finding_events(bigint[])",
    "ledger.read_finding(bigint)",
    "ledger.read_history(bigint)",
    "ledger.read_injections(text,bigint)",
    "ledger.measure_convergence(text)",
    "ledger.read_prompt_findings(text,text[],interval,integer,text,integer,integer)",
    "ledger.read_prompt_text(text,integer,text[],integer,interval,text,integer)",
    "ledger._finding_touches(bigint,integer)",  # read_prompt_findings'
    "ledger._commit_subject(text)",  # read_prompt_findings' and read_audit's
    "ledger._anchor_moves(jsonb,bigint)",  # read_audit's and read_history's: a merge's anchor record per finding
    "ledger.normalize_path(text,text)",
    "ledger._unquote_path(text,text)",  # normalize_path's
    "ledger.normalize_paths(text[],text,integer)",
    "ledger.workspace_scope(text)",
]
READ_TABLES = [
    "ledger.active_finding", "ledger.finding_lifecycle", "ledger.finding", "ledger.merge", "ledger.scope",
    "ledger.supersession", "ledger.injection", "ledger.issue", "ledger.agent_task",
    "ledger.poisoned_failure_reason", "ledger.retired_session",
    "ledger.file_state_request", "ledger.pending_file_state", "ledger.recheck_request", "ledger.scope_active_total",
]
SNAPSHOT = ["ledger.issue_snapshot(text,text,integer)", "ledger._snapshot_version()"]
SCOPE_POLICY_COLUMNS = ("hygiene_mode", "enabled_rules", "path_supersede_kinds", "slug_mention_resolves",
                        "default_branch", "line_context", "touch_modes")

# role, privilege, object ("schema ledger", a relation, relation(column), or a function signature)
PRIVILEGES: list[tuple[str, str, str]] = [
    *[(role, "USAGE", "schema ledger") for role in ROLES],
    *[(role, "EXECUTE", "ledger._visible_scopes()") for role in ROLES],
    *[(role, "EXECUTE", "ledger._check_time_bounds(timestamp with time zone,text)") for role in ROLES],
    # ledger_writer: insert findings, merges, issues, tasks, injections; report, re-review, import
    *[("ledger_writer", "EXECUTE", f) for f in ROW_HELPERS],
    *[("ledger_writer", "EXECUTE", f) for f in (
        "ledger._ensure_scope(text)",
        "ledger._check_timestamp(timestamp with time zone,text)",
        "ledger._recorded_merge(text,text)",  # the redelivery trigger's
        "ledger._check_commit_sha(text,text)",  # _100_prepare's
        "ledger._unquote_path(text,text)",
        "ledger.normalize_path(text,text)",
        "ledger.normalize_paths(text[],text,integer)",
        "ledger._evidence_keys(text,text,text,text[],text)",
        "ledger._evidence_token(text)",
        "ledger._title_sig(text)",
        "ledger._words(text)",
        "ledger._significant(text)",
        "ledger._token_chars()",
        "ledger._token_regex(boolean)",
        "ledger.add_finding(text,text,text,text[],text,text,text,text,timestamp with time zone,text,text,jsonb,text)",
        "ledger.record_merge(text,text,text[],text,text,timestamp with time zone,text,text[],text[],jsonb)",
        "ledger.record_merges(text,jsonb)",
        "ledger.report_finding(text,text,text,text,text[],text,text,text,text,timestamp with time zone,text,text,"
        "jsonb,text)",
        "ledger.replace_findings(text,text,text,jsonb,text,text,text)",
        "ledger.import_finding(text,text,text,text[],text,text,text,text,text,text[],text[],"
        "timestamp with time zone,text,text,jsonb,text)",
        "ledger._check_resolved_when(jsonb,text,integer)",  # _120_check's
        "ledger._pattern_traps(text)",  # _120_check's
        "ledger._check_pattern(text,text)",  # _120_check's
        "ledger.validate_check(jsonb,text)",  # _120_check's, and a tool's before a write
        "ledger.lint_check(jsonb,jsonb,text)",  # findings-ledger checks lint
        "ledger._check_paths(jsonb)",  # _120_check's
        "ledger.record_file_states(bigint,jsonb)",
        "ledger.claim_rechecks(text,text,integer,interval)",
        "ledger.answer_recheck(bigint,boolean,text,text)",
        "ledger.pending_file_states(text)",
        "ledger.workspace_scope(text)",
        "ledger.record_injection(text,bigint[])",
        "ledger.add_issue(text,text,text,text,text,text,text)",
        "ledger.enqueue_task(bigint,text,text,bigint,boolean)",
        *SNAPSHOT,
    )],
    *[("ledger_writer", "SELECT", t) for t in (
        "ledger.scope", "ledger.finding", "ledger.merge", "ledger.issue", "ledger.agent_task", "ledger.injection",
        "ledger.file_state_request", "ledger.pending_file_state", "ledger.recheck_request")],
    ("ledger_writer", "INSERT", "ledger.scope(scope)"),
    *[
        ("ledger_writer", "INSERT", f"ledger.finding({c})")
        for c in ("scope", "finding_key", "kind", "severity", "title", "description", "paths", "source", "created_at",
                  "slug", "strong_keywords", "tags", "observed_at", "expects", "anchors", "task_group",
                  "resolved_when", "observed_at_precision")
    ],
    *[
        ("ledger_writer", "INSERT", f"ledger.merge({c})")
        for c in ("scope", "commit_sha", "node_id", "message", "paths", "merged_at", "branch", "added", "deleted",
                  "hunks")
    ],
    *[
        ("ledger_writer", "INSERT", f"ledger.issue({c})")
        for c in ("scope", "title", "description", "status", "priority", "assignee_type", "assignee_id")
    ],
    *[
        ("ledger_writer", "UPDATE", f"ledger.issue({c})")
        for c in ("title", "description", "status", "priority", "assignee_type", "assignee_id")
    ],
    *[
        ("ledger_writer", "INSERT", f"ledger.agent_task({c})")
        for c in ("issue_id", "agent_id", "runtime_id", "rerun_of_task_id", "force_fresh_session", "scope")
    ],
    *[("ledger_writer", "INSERT", f"ledger.injection({c})")
      for c in ("session_id", "finding_id", "injected_at", "scope")],
    # ledger_reader: active findings, history, audit, issues and tasks
    *[("ledger_reader", "SELECT", t) for t in READ_TABLES],
    *[("ledger_reader", "EXECUTE", f) for f in (*READS, *SNAPSHOT)],
    ("ledger_reader", "EXECUTE", "ledger._check_text(text,text,boolean,integer,boolean)"),  # measure_convergence
    ("ledger_reader", "EXECUTE", "ledger._unicode_class(text)"),  # normalize_path, workspace_scope
    # ledger_agent: task claims
    *[("ledger_agent", "EXECUTE", f) for f in (
        "ledger.claim_task(text,text,interval)",
        "ledger.renew_task_lease(bigint,text,interval)",
        "ledger.start_task(bigint,text)",
        "ledger.complete_task(bigint,text)",
        "ledger.fail_task(bigint,text,text)",
        "ledger.cancel_task(bigint,text)",
        "ledger.requeue_task(bigint)",
        "ledger.verify_finding(bigint,text,text,text)",  # the agent that read the prompt gives the verdict
        *SNAPSHOT,
    )],
    *[("ledger_agent", "SELECT", t) for t in (
        "ledger.issue", "ledger.agent_task", "ledger.poisoned_failure_reason", "ledger.retired_session")],
    ("ledger_agent", "INSERT", "ledger.retired_session(session_id)"),
    ("ledger_agent", "INSERT", "ledger.retired_session(reason)"),
    # ledger_admin: policy, dismissals, reconcile, reading
    *[("ledger_admin", "EXECUTE", f) for f in ROW_HELPERS],
    *[("ledger_admin", "SELECT", t) for t in READ_TABLES],
    *[("ledger_admin", "EXECUTE", f) for f in READS],
    *[("ledger_admin", "EXECUTE", f) for f in (
        "ledger.set_hygiene_mode(text,text,boolean)",
        "ledger.set_match_policy(text,text[],text[],boolean,text,integer,boolean,text,text)",
        "ledger.dismiss_finding(bigint,text,text,text)",
        "ledger.restore_finding(bigint,text,text)",
        "ledger.reconcile(text)",
    )],
    ("ledger_admin", "INSERT", "ledger.scope(scope)"),
    *[("ledger_admin", "INSERT", f"ledger.scope({c})") for c in SCOPE_POLICY_COLUMNS],
    *[("ledger_admin", "UPDATE", f"ledger.scope({c})") for c in SCOPE_POLICY_COLUMNS],
    ("ledger_admin", "INSERT", "ledger.poisoned_failure_reason"),
    ("ledger_admin", "DELETE", "ledger.poisoned_failure_reason"),
    ("ledger_admin", "UPDATE", "ledger.poisoned_failure_reason(note)"),
    ("ledger_admin", "INSERT", "ledger.retired_session"),
    ("ledger_admin", "DELETE", "ledger.retired_session"),
]

#: Ledger objects no role (and not PUBLIC) may use directly, on purpose.
NO_GRANTS = [
    "ledger.alembic_version",
    "ledger._require_role(name,text)",  # the definers' check of their caller's role: only they call it
    # report_finding's work, also replace_findings' once per element (their role checked once per call)
    "ledger._report_finding(text,text,text,text,text[],text,text,text,text,timestamp with time zone,text,text,jsonb,"
    "text)",
    "ledger.finding_path",  # the path rule's index: only the SECURITY DEFINER tg_finding__paths_* write it
    # only SECURITY DEFINER functions run these, as the owner
    "ledger._apply_merge(bigint,boolean)",
    "ledger._merge_audit(bigint)",  # record_merge's, record_merges' and reconcile's
    "ledger._eval_check(jsonb,jsonb)",
    "ledger._check_leaves(jsonb)",  # lint_check's
    "ledger._lint_stubs(text)",  # lint_check's
    "ledger._merge_file_states(text[],text[],text[],text[])",
    "ledger._settle_checks(bigint)",
    "ledger._settle_rechecks(bigint)",
    "ledger._overruled_by_person(bigint,bigint)",
    "ledger._touch_mode(jsonb,text)",
    "ledger._default_touch_mode(text)",
    "ledger._touch_counts(jsonb,text[],text)",
    "ledger.tg_finding__prepare_check()",
    "ledger._apply_revert(bigint)",
    "ledger._path_keys(text[])",
    "ledger._revert_targets(text,text,bigint)",
    "ledger._reopen_finding(ledger.finding,text,text,text,text,text,bigint,jsonb)",
    "ledger._match_changes(text,text[],text[],text[],jsonb,integer)",
    "ledger._merge_decisions(text,text,text[],text,timestamp with time zone,text[],text[],jsonb,boolean,jsonb)",
    "ledger._match_message(text,text)",
    "ledger._message_may_match(text,text)",
    "ledger._message_probe_keys(text,text)",
    "ledger._token_split_regex()",
    "ledger._tokenise(text,boolean)",
    "ledger._token_keys(text,text[],text[])",
    "ledger._message_tokens(text)",
    "ledger._message_segments(text)",
    "ledger._file_slug(text)",
    "ledger._object_ends(text)",
    "ledger._other_merge_of_commit(text,text,bigint)",
    "ledger._insert_merges(text,jsonb)",
    "ledger._resumed_row(bigint,bigint,text,text,bigint,boolean)",
    "ledger._snapshot_changes(jsonb,jsonb)",
    "ledger._check_task_transition(bigint,text,text)",
    "ledger._set_task_status(bigint,text,text,text)",
    "ledger._check_json_shape(jsonb,text,jsonb)",  # replace_findings' argument check
    # the owner's switch
    "ledger.enable_scope_rls()",
    "ledger.disable_scope_rls()",
    "ledger.create_publication(text)",  # the owner's, for logical replication
    # trigger functions: EXECUTE is not checked when a trigger fires
    "ledger.tg_agent_task__guard_snapshot()",
    "ledger.tg_agent_task__prepare()",
    "ledger.tg_finding__forbid_delete()",
    "ledger.tg_finding__lifecycle()",
    "ledger.tg_finding__prepare()",
    "ledger.tg_finding__prepare_evidence()",
    "ledger.tg_finding__paths_insert()",
    "ledger.tg_finding__paths_update()",
    "ledger.tg_finding__active_totals()",
    "ledger.tg_finding__settle_rechecks()",
    "ledger.tg_injection__prepare()",
    "ledger.tg_issue__prepare()",
    "ledger.tg_merge__prepare()",
    "ledger.tg_merge__prepare_branch()",
    "ledger.tg_merge__check_redelivery()",
    "ledger.tg_merge__immutable()",
    "ledger.tg_merge__prepare_changes()",
    "ledger.tg_merge__supersede()",
    "ledger.tg_scope__prepare()",
    "ledger.tg_scope__prepare_policy()",
    "ledger.tg_scoped__check_access()",
    "ledger.tg_supersession__append_only()",
    "ledger.tg_supersession__notify()",
]

OBJECTS = """
SELECT c.oid::regclass::text FROM pg_class c
 WHERE c.relnamespace = 'ledger'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
UNION ALL
SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace
"""


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


#: Every SECURITY DEFINER function, and why it needs its owner's rights.
DEFINERS = {
    "ledger.tg_merge__supersede()": "a writer's INSERT of merges supersedes and reopens findings and writes the audit",
    "ledger.tg_finding__paths_insert()": "a writer's INSERT of a finding files its paths in ledger.finding_path",
    "ledger.tg_finding__paths_update()": "a supersession, dismissal or reopen keeps ledger.finding_path",
    "ledger.tg_finding__settle_rechecks()": "a supersession or dismissal makes the finding's open recheck "
    "requests moot, which no role may write",
    "ledger.tg_finding__active_totals()": "a writer's insert and every supersession, dismissal or reopen keep "
    "ledger.scope_active_total, which no role may write",
    "ledger.record_merge(text,text,text[],text,text,timestamp with time zone,text,text[],text[],jsonb)":
        "returns audit rows",
    "ledger.record_merges(text,jsonb)": "returns audit rows",
    "ledger.reconcile(text)": "updates findings and merges, writes the audit (admin)",
    "ledger.report_finding(text,text,text,text,text[],text,text,text,text,timestamp with time zone,text,text,"
    "jsonb,text)":
        "re-report, reopen, audit (writer)",
    "ledger.replace_findings(text,text,text,jsonb,text,text,text)": "supersedes absent findings, audit (writer)",
    "ledger.import_finding(text,text,text,text[],text,text,text,text,text,text[],text[],timestamp with time zone,"
    "text,text,jsonb,text)": "refreshes findings",
    "ledger.record_file_states(bigint,jsonb)": "settles file-state requests, supersedes, writes the audit (writer)",
    "ledger.claim_rechecks(text,text,integer,interval)": "leases recheck requests (writer has no UPDATE)",
    "ledger.answer_recheck(bigint,boolean,text,text)": "supersedes on a recheck, writes the audit (writer)",
    "ledger.lint_check(jsonb,jsonb,text)": "evaluates a check with _eval_check, which no role may call (no table)",
    "ledger.verify_finding(bigint,text,text,text)": "supersedes on a verdict, writes the audit (agent)",
    "ledger.dismiss_finding(bigint,text,text,text)": "updates a finding, writes the audit (admin)",
    "ledger.restore_finding(bigint,text,text)": "updates a finding, writes the audit (admin)",
    "ledger.claim_task(text,text,interval)": "dispatches a task and writes issue_snapshot (agent)",
    "ledger.renew_task_lease(bigint,text,interval)": "extends a task's lease (agent has no UPDATE on agent_task)",
    "ledger.start_task(bigint,text)": "task status (agent has no UPDATE on agent_task)",
    "ledger.complete_task(bigint,text)": "task status",
    "ledger.fail_task(bigint,text,text)": "task status",
    "ledger.cancel_task(bigint,text)": "task status",
    "ledger.requeue_task(bigint)": "task status",
}


def test_security_definer_functions_pin_search_path(ledger_conn: psycopg.Connection) -> None:
    rows = ledger_conn.execute(
        "SELECT p.oid::regprocedure::text, p.proconfig FROM pg_proc p "
        "WHERE p.pronamespace = 'ledger'::regnamespace AND p.prosecdef ORDER BY 1"
    ).fetchall()
    assert sorted(r[0] for r in rows) == sorted(DEFINERS)
    # the merge trigger also turns off jit and parallel workers for the statements it runs; report_finding
    # turns off sequential and bitmap scans so that its lookup's cached plan probes the unique index
    planner = {"jit=off", "max_parallel_workers_per_gather=0", "enable_seqscan=off", "enable_bitmapscan=off"}
    assert all(r[1][0] == "search_path=pg_catalog, pg_temp" and set(r[1][1:]) <= planner for r in rows)


#: The first statement of a definer a role calls: the check of its caller's role (a PL/pgSQL DECLARE section's
#: initializers, argument checks that read no table, may run before it).
ROLE_CHECK = re.compile(
    r"^\s*(?:#variable_conflict \w+\s*)?(?:DECLARE\b.*?\n)?BEGIN\n"  # PL/pgSQL: the body's first statement
    r"\s*PERFORM ledger\._require_role\('(\w+)', '([\w.]+)'\);"
    r"|^\s*SELECT ledger\._require_role\('(\w+)', '([\w.]+)'\);",  # SQL: the first statement
    re.S)

#: The first statement of a definer trigger function: the check of the table it was fired for.
TABLE_CHECK = re.compile(
    r"^\s*(?:DECLARE\b.*?\n)?BEGIN\n\s*IF TG_RELID <> 'ledger\.(?:finding|merge)'::regclass THEN\n"
    r"\s*RAISE EXCEPTION '[^']*' *, TG_RELID::regclass\s*USING ERRCODE = 'LD403';", re.S)


def test_every_definer_a_role_calls_checks_that_role_first(ledger_conn: psycopg.Connection) -> None:
    """A lost REVOKE is not an escalation: each SECURITY DEFINER function but
    the trigger functions begins with ledger._require_role naming itself and
    the one role PRIVILEGES grants its EXECUTE to. The trigger functions
    check no role (one role would refuse the others) but begin with the check
    of their table (TG_RELID), so that a role holding EXECUTE cannot run them
    on a table of its own."""
    rows = ledger_conn.execute(
        "SELECT p.oid::regprocedure::text, p.proname::text, p.prosrc, p.prorettype = 'trigger'::regtype "
        "FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace AND p.prosecdef ORDER BY 1").fetchall()
    checked = 0
    for signature, name, body, is_trigger in rows:
        if is_trigger:
            assert "_require_role" not in body, signature
            assert TABLE_CHECK.match(body) is not None, f"{signature} does not begin with its TG_RELID check"
            continue
        match = ROLE_CHECK.match(body)
        assert match is not None, f"{signature} does not begin with ledger._require_role"
        role, function = match.group(1) or match.group(3), match.group(2) or match.group(4)
        granted = sorted(r for r, privilege, obj in PRIVILEGES if privilege == "EXECUTE" and obj == signature)
        assert (function, [role]) == (f"ledger.{name}", granted), signature
        checked += 1
    assert checked == 20


def test_every_function_pins_its_search_path_or_qualifies_every_name(ledger_conn: psycopg.Connection) -> None:
    """Functions without SET search_path are LANGUAGE sql: helpers PostgreSQL
    must be able to inline (index expressions, per-row helpers) and
    one-statement wrappers with schema-qualified tables. None of them is a
    SECURITY DEFINER, so a caller who shadows a name they use only misleads
    themselves; tests/access/test_security_hijack.py shows the index expressions
    and the definers are immune."""
    rows = ledger_conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
        "WHERE p.pronamespace = 'ledger'::regnamespace AND p.proconfig IS NULL ORDER BY 1"
    ).fetchall()
    unpinned = [r[0] for r in rows]
    assert unpinned == sorted([
        "ledger._evidence_token(text)", "ledger._file_slug(text)",
        "ledger._finding_state(timestamp with time zone,timestamp with time zone)",
        "ledger._normalize_branch(text,text)",
        "ledger._scope_kept(text)", "ledger._severity_rank(text)", "ledger._significant(text)",
        "ledger._text_kept(text,integer)",
        "ledger._touch_mode(jsonb,text)", "ledger._default_touch_mode(text)",
        "ledger._touch_counts(jsonb,text[],text)", "ledger._anchors_kept(jsonb,text[])",
        "ledger._token_chars()", "ledger._token_regex(boolean)", "ledger._token_split_regex()",
        "ledger._unicode_class(text)",
        "ledger.add_finding(text,text,text,text[],text,text,text,text,timestamp with time zone,text,text,jsonb,text)",
        "ledger.add_issue(text,text,text,text,text,text,text)", "ledger.enqueue_task(bigint,text,text,bigint,boolean)",
    ])
    definers = ledger_conn.execute(
        "SELECT count(*) FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace AND prosecdef AND proconfig IS NULL"
    ).fetchone()
    assert definers == (0,)
    # a pinned path names pg_temp last: without it the temporary schema is searched first for types
    paths = ledger_conn.execute(
        "SELECT DISTINCT c FROM pg_proc p, unnest(p.proconfig) AS c "
        "WHERE p.pronamespace = 'ledger'::regnamespace AND c LIKE 'search_path=%'").fetchall()
    assert paths == [("search_path=pg_catalog, pg_temp",)]


# --- what each role can do ----------------------------------------------------------------------


def test_writer_plain_insert_supersedes_and_audits(ledger_conn: psycopg.Connection) -> None:
    retire_drift_on_touch(ledger_conn, "s")  # the path rule as such on the drift findings
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
    retire_drift_on_touch(ledger_conn, "s")  # the path rule as such on the drift findings
    with as_role(ledger_conn, "ledger_writer") as conn:
        f = fl.add_finding(conn, "s", "stale", paths=["./b.py:3"], kind="drift")
        r = fl.record_merge(conn, "s", "abcd", ["b.py"], node_id="n1")
    assert f.paths == ["b.py"]
    assert r.recorded and r.superseded == [f.id]


def test_reader_and_admin_api_calls_work(ledger_conn: psycopg.Connection) -> None:
    retire_drift_on_touch(ledger_conn, "s")  # the path rule as such on the drift findings
    fid = fl.add_finding(ledger_conn, "s", "stale", paths=["b.py"], kind="drift").id
    mid = fl.record_merge(ledger_conn, "s", "abcd", ["b.py"]).merge_id
    fl.add_finding(ledger_conn, "s", "open", paths=["c.py"], kind="drift")
    with as_role(ledger_conn, "ledger_reader") as conn:
        assert [f.title for f in fl.active_findings(conn, "s")] == ["open"]
        assert [a.action for a in fl.read_audit(conn, "s", finding_id=fid)] == ["superseded"]
        assert [a.finding_id for a in fl.read_audit(conn, "s", merge_id=mid)] == [fid]
    with as_role(ledger_conn, "ledger_admin") as conn:
        assert fl.set_hygiene_mode(conn, "s", "dry") == "dry"
        assert fl.set_hygiene_mode(conn, "new-scope", "off", create=True) == "off"
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
    ("ledger_writer", "SELECT * FROM ledger._revert_targets('s', 'x', 1)"),
    ("ledger_writer", "SELECT * FROM ledger.enable_scope_rls()"),
    ("ledger_admin", "SELECT * FROM ledger.create_publication('p')"),
    ("ledger_writer", "SELECT * FROM ledger.read_audit('s')"),
    ("ledger_reader", "INSERT INTO ledger.finding (scope, title) VALUES ('s', 't')"),
    ("ledger_reader", "INSERT INTO ledger.merge (scope, commit_sha) VALUES ('s', 'abcd')"),
    ("ledger_reader", "SELECT * FROM ledger.record_merge('s', 'abcd')"),
    ("ledger_reader", "SELECT * FROM ledger.record_merges('s', '[{\"commit_sha\": \"abcd\"}]')"),
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
    # lifecycle: writers report, admins dismiss; nobody writes the lifecycle columns directly
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, dismissed_at) VALUES ('s', 't', now())"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, resolution) VALUES ('s', 't', 'accepted')"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, report_count) VALUES ('s', 't', 9)"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, reopen_count) VALUES ('s', 't', 9)"),
    ("ledger_writer", "INSERT INTO ledger.finding (scope, title, review_run) VALUES ('s', 't', 'r')"),
    ("ledger_writer", "UPDATE ledger.finding SET dismissed_at = now(), resolution = 'accepted'"),
    ("ledger_writer", "UPDATE ledger.finding SET slug = 'other'"),
    ("ledger_writer", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', 'me', 'why')"),
    ("ledger_writer", "SELECT * FROM ledger.restore_finding(1, 'me', 'why')"),
    ("ledger_writer", "SELECT count(*) FROM ledger.finding_lifecycle"),
    ("ledger_writer", "SELECT * FROM ledger.read_history(1)"),
    ("ledger_writer", "DELETE FROM ledger.injection"),
    ("ledger_writer", "UPDATE ledger.injection SET injected_at = now()"),
    ("ledger_reader", "SELECT * FROM ledger.report_finding('s', 'k', 't')"),
    ("ledger_reader", "SELECT * FROM ledger.replace_findings('s', NULL, 'run', '[]')"),
    ("ledger_reader", "SELECT * FROM ledger.record_injection('sess', '{1}')"),
    ("ledger_reader", "INSERT INTO ledger.injection (session_id, finding_id) VALUES ('sess', 1)"),
    ("ledger_reader", "SELECT * FROM ledger.dismiss_finding(1, 'accepted', 'me', 'why')"),
    ("ledger_agent", "SELECT * FROM ledger.report_finding('s', 'k', 't')"),
    ("ledger_agent", "SELECT * FROM ledger.read_finding(1)"),
    ("ledger_admin", "SELECT * FROM ledger.report_finding('s', 'k', 't')"),
    ("ledger_admin", "SELECT * FROM ledger.replace_findings('s', NULL, 'run', '[]')"),
    ("ledger_admin", "SELECT * FROM ledger.record_injection('sess', '{1}')"),
    ("ledger_admin", "UPDATE ledger.finding SET dismissed_at = NULL"),
    ("ledger_admin", "INSERT INTO ledger.supersession (scope, action) VALUES ('s', 'dismissed')"),
    # matching: policy is the admin's, importing the writer's
    ("ledger_writer", "SELECT * FROM ledger.set_match_policy('s', '{path}')"),
    ("ledger_writer", "INSERT INTO ledger.scope (scope, enabled_rules) VALUES ('t', '{path}')"),
    ("ledger_writer", "INSERT INTO ledger.scope (scope, path_supersede_kinds) VALUES ('t', '{*}')"),
    ("ledger_writer", "UPDATE ledger.scope SET default_branch = 'main'"),
    ("ledger_writer", "UPDATE ledger.merge SET branch = 'main'"),
    ("ledger_writer", "SELECT * FROM ledger._merge_decisions('s', 'fixes F-1', '{}', NULL)"),
    ("ledger_writer", "SELECT * FROM ledger._match_message('s', 'fixes F-1')"),
    ("ledger_reader", "SELECT * FROM ledger.import_finding('s', 't')"),
    ("ledger_reader", "SELECT * FROM ledger.set_match_policy('s', '{path}')"),
    ("ledger_agent", "SELECT * FROM ledger.import_finding('s', 't')"),
    ("ledger_agent", "SELECT ledger.workspace_scope('/x')"),
    ("ledger_admin", "SELECT * FROM ledger.import_finding('s', 't')"),
    ("ledger_admin", "UPDATE ledger.scope SET scope = 'x'"),
    # claims: writers file issues and tasks, agents run them; issue_snapshot belongs to the claim
    ("ledger_writer", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, issue_snapshot) "
                      "VALUES (1, 'a', 'r', '{\"v\": 1}')"),
    ("ledger_writer", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, status) "
                      "VALUES (1, 'a', 'r', 'dispatched')"),
    ("ledger_writer", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, dispatch_count) "
                      "VALUES (1, 'a', 'r', 1)"),
    ("ledger_writer", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, session_id) "
                      "VALUES (1, 'a', 'r', 'sess')"),
    ("ledger_writer", "UPDATE ledger.agent_task SET issue_snapshot = NULL"),
    ("ledger_writer", "UPDATE ledger.agent_task SET status = 'cancelled'"),
    ("ledger_writer", "DELETE FROM ledger.agent_task"),
    ("ledger_writer", "UPDATE ledger.issue SET scope = 'other'"),
    ("ledger_writer", "INSERT INTO ledger.issue (scope, title, created_at) VALUES ('s', 't', now())"),
    ("ledger_writer", "DELETE FROM ledger.issue"),
    ("ledger_writer", "SELECT * FROM ledger.claim_task('rt')"),
    ("ledger_writer", "SELECT * FROM ledger.start_task(1)"),
    ("ledger_writer", "SELECT ledger.renew_task_lease(1, 'rt', interval '1 minute')"),
    ("ledger_reader", "SELECT ledger.renew_task_lease(1, 'rt', interval '1 minute')"),
    ("ledger_writer", "SELECT * FROM ledger.cancel_task(1)"),
    ("ledger_writer", "SELECT * FROM ledger._set_task_status(1, 'running', NULL, NULL)"),
    ("ledger_writer", "INSERT INTO ledger.poisoned_failure_reason (failure_reason) VALUES ('x')"),
    ("ledger_writer", "INSERT INTO ledger.retired_session (session_id) VALUES ('x')"),
    ("ledger_reader", "SELECT * FROM ledger.claim_task('rt')"),
    ("ledger_reader", "SELECT * FROM ledger.add_issue('s', 't')"),
    ("ledger_reader", "SELECT * FROM ledger.enqueue_task(1, 'a', 'r')"),
    ("ledger_reader", "UPDATE ledger.issue SET title = 'x'"),
    ("ledger_agent", "UPDATE ledger.agent_task SET status = 'running'"),
    ("ledger_agent", "UPDATE ledger.agent_task SET issue_snapshot = NULL"),
    ("ledger_agent", "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (1, 'a', 'r')"),
    ("ledger_agent", "SELECT * FROM ledger.enqueue_task(1, 'a', 'r')"),
    ("ledger_agent", "SELECT * FROM ledger.add_issue('s', 't')"),
    ("ledger_agent", "UPDATE ledger.issue SET title = 'x'"),
    ("ledger_agent", "SELECT * FROM ledger._set_task_status(1, 'running', NULL, NULL)"),
    ("ledger_agent", "SELECT * FROM ledger._resumed_row(1, 1, 'a', 'r', NULL, false)"),
    ("ledger_agent", "DELETE FROM ledger.retired_session"),
    ("ledger_agent", "INSERT INTO ledger.poisoned_failure_reason (failure_reason) VALUES ('x')"),
    ("ledger_admin", "SELECT * FROM ledger.claim_task('rt')"),
    ("ledger_admin", "SELECT * FROM ledger.requeue_task(1)"),
    ("ledger_admin", "UPDATE ledger.agent_task SET status = 'cancelled'"),
    ("ledger_admin", "INSERT INTO ledger.issue (scope, title) VALUES ('s', 't')"),
    ("ledger_admin", "SELECT * FROM ledger.enqueue_task(1, 'a', 'r')"),
]


@pytest.mark.parametrize(("role", "statement"), DENIED, ids=[f"{r}:{s[:60]}" for r, s in DENIED])
def test_role_is_denied(ledger_conn: psycopg.Connection, role: str, statement: str) -> None:
    fl.add_finding(ledger_conn, "s", "a finding", paths=["a.py"], kind="drift")
    fl.record_merge(ledger_conn, "s", "1234", ["z.py"])
    with as_role(ledger_conn, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)


def test_downgrade_and_upgrade_again(ledger_conn: psycopg.Connection, ledger_dsn: str) -> None:
    """Downgrade below the baseline takes every object and privilege away
    (nothing is left for PUBLIC or the roles in this database); the roles
    stay, since other databases of the cluster (the test template) use
    them; upgrading again gives exactly the same privileges back."""
    cfg = alembic_config(ledger_dsn)
    with below_baseline(ledger_dsn):
        command.downgrade(cfg, "base")
    assert ledger_conn.execute("SELECT count(*) FROM pg_policy").fetchone() == (0,)
    assert ledger_conn.execute(
        "SELECT count(*) FROM pg_proc WHERE pronamespace = 'ledger'::regnamespace").fetchone() == (0,)
    assert actual_privileges(ledger_conn) == set()
    assert ledger_conn.execute("SELECT count(*) FROM pg_roles WHERE rolname = ANY (%s)", (list(ROLES),)).fetchone() \
        == (4,)
    command.upgrade(cfg, "head")
    assert actual_privileges(ledger_conn) == set(PRIVILEGES)
