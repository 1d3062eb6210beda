"""No privilege escalation through stored functions: a
low-privilege caller who creates same-named temporary tables, functions and
operators (pg_temp.finding, pg_temp.agent_task, public.unnest,
public.normalize_path, public.set_config, public.strpos, an operator = or &&
or || in public, public.current_setting ...) and puts them first on its
search_path cannot change what the SECURITY DEFINER functions (merges,
reverts, claims, task transitions, reports, re-reviews, imports,
dismissals, restores, reconcile), the triggers, the index expressions, the
policies or the views do.

Every hostile object writes a row to public.hijack_log when it runs; the
test asserts that no row appears and that every result is exactly right. A
control case shows the hostile objects do take over a function that does
not pin its search_path, so the test has teeth.
"""

from __future__ import annotations

import psycopg
import pytest
from support.security import as_role, ensure_login_role
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("att", "victim")

ATTACKER = "ledger_test_attacker"
HOSTILE_PATH = "SET search_path = pg_temp, public, pg_catalog"

SETUP = """
CREATE TABLE public.hijack_log (who text, what text);
GRANT INSERT, SELECT ON public.hijack_log TO PUBLIC;
GRANT CREATE ON SCHEMA public TO {attacker};
"""

# Created by the attacker itself, in public and in its temporary schema.
HOSTILE = r"""
CREATE FUNCTION public.unnest(anyarray) RETURNS SETOF anyelement LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'unnest'); RETURN; END $$;
CREATE FUNCTION public.cardinality(anyarray) RETURNS integer LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'cardinality'); RETURN 0; END $$;
CREATE FUNCTION public.string_to_array(text, text) RETURNS text[] LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'string_to_array'); RETURN '{}'; END $$;
CREATE FUNCTION public.btrim(text, text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'btrim'); RETURN 'hijacked'; END $$;
CREATE FUNCTION public.lower(text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'lower'); RETURN 'hijacked'; END $$;
CREATE FUNCTION public.now() RETURNS timestamptz LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'now'); RETURN 'epoch'; END $$;
CREATE FUNCTION public.normalize_path(text, text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'normalize_path'); RETURN '../evil'; END $$;
CREATE FUNCTION public.normalize_paths(text[], text, integer) RETURNS text[] LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'normalize_paths'); RETURN '{../evil}'; END $$;
CREATE FUNCTION public.current_setting(text, boolean) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'current_setting'); RETURN 'victim'; END $$;
CREATE FUNCTION public.row_security_active(regclass) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'row_security_active'); RETURN false; END $$;
CREATE FUNCTION public.jsonb_agg(jsonb) RETURNS jsonb LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'jsonb_agg'); RETURN '[]'; END $$;

CREATE FUNCTION public.evil_text_eq(text, text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'text ='); RETURN true; END $$;
CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.evil_text_eq);
CREATE FUNCTION public.evil_bigint_eq(bigint, bigint) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'bigint ='); RETURN true; END $$;
CREATE OPERATOR public.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = public.evil_bigint_eq);
CREATE FUNCTION public.evil_overlap(text[], text[]) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, '&&'); RETURN true; END $$;
CREATE OPERATOR public.&& (LEFTARG = text[], RIGHTARG = text[], FUNCTION = public.evil_overlap);
CREATE FUNCTION public.evil_concat(text, text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, '||');
     RETURN pg_catalog.concat('victim', pg_catalog.chr(31), 'src/'); END $$;
CREATE OPERATOR public.|| (LEFTARG = text, RIGHTARG = text, FUNCTION = public.evil_concat);

CREATE FUNCTION public.strpos(text, text) RETURNS integer LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'strpos'); RETURN 0; END $$;
CREATE FUNCTION public.regexp_matches(text, text, text) RETURNS SETOF text[] LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'regexp_matches'); RETURN; END $$;
CREATE FUNCTION public.jsonb_typeof(jsonb) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'jsonb_typeof'); RETURN 'array'; END $$;
CREATE FUNCTION public.jsonb_array_elements(jsonb) RETURNS SETOF jsonb LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'jsonb_array_elements'); RETURN; END $$;
CREATE FUNCTION public.set_config(text, text, boolean) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'set_config'); RETURN $2; END $$;
CREATE FUNCTION public.sha256(bytea) RETURNS bytea LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'sha256'); RETURN '\x00'; END $$;
CREATE FUNCTION public.clock_timestamp() RETURNS timestamptz LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'clock_timestamp'); RETURN 'epoch'; END $$;
CREATE FUNCTION public.pg_advisory_xact_lock(bigint) RETURNS void LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'pg_advisory_xact_lock'); END $$;
CREATE FUNCTION public.regexp_replace(text, text, text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'regexp_replace'); RETURN 'hijacked'; END $$;

CREATE TEMP TABLE finding (LIKE ledger.finding);
CREATE TEMP TABLE issue (LIKE ledger.issue);
CREATE TEMP TABLE agent_task (LIKE ledger.agent_task);
CREATE TEMP TABLE injection (LIKE ledger.injection);
CREATE TEMP TABLE finding_lifecycle (id bigint);
CREATE TEMP TABLE poisoned_failure_reason (LIKE ledger.poisoned_failure_reason);
CREATE TEMP TABLE retired_session (LIKE ledger.retired_session);
CREATE TEMP TABLE merge (LIKE ledger.merge);
CREATE TEMP TABLE scope (LIKE ledger.scope);
CREATE TEMP TABLE supersession (LIKE ledger.supersession);
CREATE FUNCTION pg_temp.normalize_path(text, text) RETURNS text LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'pg_temp.normalize_path'); RETURN '../evil'; END $$;
CREATE FUNCTION pg_temp.unnest(anyarray) RETURNS SETOF anyelement LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'pg_temp.unnest'); RETURN; END $$;
"""


@pytest.fixture
def attacker(ledger_conn: psycopg.Connection) -> psycopg.Connection:
    """ledger_conn set up with the hostile objects; as the attacker (writer and
    admin) with the hostile search_path inside ``as_role``."""
    ensure_login_role(ledger_conn, ATTACKER, "ledger_writer", "ledger_admin", "ledger_reader", "ledger_agent")
    ledger_conn.execute(SETUP.format(attacker=ATTACKER))
    with as_role(ledger_conn, ATTACKER) as conn:
        conn.execute(HOSTILE)
    return ledger_conn


def hijack_log(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute("SELECT who, what FROM public.hijack_log").fetchall()


def test_control_the_hostile_objects_take_over_an_unpinned_function(attacker: psycopg.Connection) -> None:
    attacker.execute(
        "CREATE FUNCTION public.naive_count(text[]) RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM unnest($1)'")
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_PATH)
        assert conn.execute("SELECT public.naive_count('{a,b}')").fetchone() == (0,)
        assert conn.execute("SELECT 'a'::text = 'b'::text").fetchone() == (True,)
    assert (ATTACKER, "unnest") in hijack_log(attacker)
    assert (ATTACKER, "text =") in hijack_log(attacker)


def test_definer_functions_triggers_and_index_ignore_the_callers_objects(attacker: psycopg.Connection) -> None:
    victim = fl.add_finding(attacker, "victim", "victim's finding", paths=["src/"], kind="drift").id
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_PATH)
        f1 = conn.execute(
            "INSERT INTO ledger.finding (scope, title, kind, severity, paths) "
            "VALUES ('att', ' Stale ', 'DRIFT', 'High', '{./src/a.py:3,src/a.py}') RETURNING id, title, kind, paths"
        ).fetchone()
        f2 = fl.add_finding(conn, "att", "other", paths=["src/b.py"], kind="drift")
        f3 = fl.add_finding(conn, "att", "untouched", paths=["docs/"], kind="drift")
        # plain INSERT: the SECURITY DEFINER trigger supersedes f1 only
        m1 = conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths) VALUES ('att', 'AAAA1', 'n1', '{src/a.py}') "
            "RETURNING id, commit_sha, paths, processed"
        ).fetchone()
        # record_merge (SECURITY DEFINER): f2 only, decisions read from the real audit
        r2 = fl.record_merge(conn, "att", "bbbb2", ["src/b.py"], node_id="n2")
        again = fl.record_merge(conn, "att", " BBBB2 ", ["src/b.py"])
        assert fl.set_hygiene_mode(conn, "att", "ON") == "on"
        active = [f.id for f in fl.active_findings(conn, "att")]
        audit = [(a.finding_id, a.merge_id, a.action) for a in fl.read_audit(conn, "att")]
        for table in ("finding", "merge", "scope", "supersession"):
            assert conn.execute(f"SELECT count(*) FROM pg_temp.{table}").fetchone() == (0,)
    assert f1 == (f1[0], "Stale", "drift", ["src/a.py"])
    assert m1[1:] == ("aaaa1", ["src/a.py"], True)
    assert r2.recorded and r2.superseded == [f2.id]
    assert again.merge_id == r2.merge_id and again.recorded is False and again.superseded == [f2.id]
    assert active == [f3.id]
    assert audit == [(f1[0], m1[0], "superseded"), (f2.id, r2.merge_id, "superseded")]
    state = attacker.execute(
        "SELECT id, scope, superseded_by, superseded_at > now() - interval '1 hour' FROM ledger.finding ORDER BY id"
    ).fetchall()
    assert state == [(victim, "victim", None, None), (f1[0], "att", "n1", True), (f2.id, "att", "n2", True),
                     (f3.id, "att", None, None)]
    assert hijack_log(attacker) == []


def test_path_keys_written_under_a_hostile_search_path_are_the_real_ones(attacker: psycopg.Connection) -> None:
    """A finding's paths are filed in ledger.finding_path by a trigger that
    runs while the inserting role's search_path is in force. A hostile ||,
    unnest or = would file the attacker's finding under the victim's scope
    or paths (and leak the victim's merges into the attacker's audit)."""
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_PATH)
        fid = conn.execute(
            "INSERT INTO ledger.finding (scope, title, kind, paths) VALUES ('att', 't', 'drift', '{lib/x.py}') "
            "RETURNING id").fetchone()[0]
    filed = attacker.execute(
        "SELECT scope, path FROM ledger.finding_path WHERE finding_id = %s ORDER BY 1, 2", (fid,)).fetchall()
    under_victim = attacker.execute("SELECT count(*) FROM ledger.finding_path WHERE scope = 'victim'").fetchone()
    with attacker.transaction(force_rollback=True):
        # the path rule's probe finds it through the side table's btree, under its own scope only
        attacker.execute("SET LOCAL enable_seqscan = off")
        probe = "SELECT finding_id FROM ledger.finding_path WHERE scope = %s AND path = ANY(%s)"
        by_rule = attacker.execute(probe, ("att", ["lib/x.py", "lib"])).fetchall()
        in_victim = attacker.execute(probe, ("victim", ["lib/x.py", "lib"])).fetchall()
    assert filed == [("att", "lib/x.py")]
    assert under_victim == (0,)
    assert by_rule == [(fid,)]
    assert in_victim == []
    victim_merge = fl.record_merge(attacker, "victim", "cccc3", ["src/x.py"])
    assert victim_merge.decisions == []
    assert hijack_log(attacker) == []


def test_reconcile_ignores_the_callers_objects(attacker: psycopg.Connection) -> None:
    fid = fl.add_finding(attacker, "att", "stale", paths=["src/a.py"], kind="drift").id
    attacker.execute("SET session_replication_role = replica")
    attacker.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('att', 'dddd4', '{./src/a.py:7}')")
    attacker.execute("SET session_replication_role = DEFAULT")
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_PATH)
        results = fl.reconcile(conn, "att")
    assert [r.superseded for r in results] == [[fid]]
    assert attacker.execute("SELECT paths, processed FROM ledger.merge").fetchall() == [(["src/a.py"], True)]
    assert hijack_log(attacker) == []


def test_policies_and_view_ignore_the_callers_objects(attacker: psycopg.Connection) -> None:
    """Under per-scope row-level security, a hostile current_setting, = or
    row_security_active does not widen what the attacker sees or may write."""
    fl.add_finding(attacker, "victim", "victim's secret", paths=["src/"], kind="drift")
    fl.add_finding(attacker, "att", "mine", paths=["src/"], kind="drift")
    fl.enable_scope_rls(attacker)
    with as_role(attacker, ATTACKER, scopes="att") as conn:
        conn.execute(HOSTILE_PATH)
        seen = conn.execute("SELECT scope FROM ledger.finding ORDER BY 1").fetchall()
        seen_view = conn.execute("SELECT scope FROM ledger.active_finding ORDER BY 1").fetchall()
        seen_audit = conn.execute("SELECT count(*) FROM ledger.supersession").fetchone()
        with pytest.raises(fl.ScopeDenied), fl.errors.translate():
            conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('victim', 'eeee5', '{src/a.py}')")
    assert seen == [("att",)] and seen_view == [("att",)] and seen_audit == (0,)
    assert attacker.execute("SELECT count(*) FROM ledger.active_finding WHERE scope = 'victim'").fetchone() == (1,)
    assert hijack_log(attacker) == []


def test_claims_lifecycle_and_matching_definers_ignore_the_callers_objects(attacker: psycopg.Connection) -> None:
    """The definer functions of claims, lifecycle and matching, and the
    definer revert trigger, under the hostile search_path: every result is
    the real one and no hostile object ran."""
    issue = fl.add_issue(attacker, "att", "an issue", description="body")
    tasks = [fl.enqueue_task(attacker, issue.id, "agent-1", "rt-1").id for _ in range(3)]
    sha = "abcdef12" * 5
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_PATH)
        # lifecycle (writer): report, re-review, import; the evidence index under the hostile path
        first = fl.report_finding(conn, "att", "F-1", "parser drops ECONNRESET", paths=["src/p.py"], kind="drift")
        again = fl.report_finding(conn, "att", "F-1", "parser drops ECONNRESET")
        review = fl.replace_findings(conn, "att", "run-1", [
            {"finding_key": "F-1", "title": "parser drops ECONNRESET", "kind": "drift"},
            {"finding_key": "F-2", "title": "lexer is slow", "paths": ["src/lex.py"], "kind": "drift"}], kind="drift")
        imported = fl.import_finding(conn, "att", "imported note", slug="2026-01-01-imported-note.md",
                                     strong_keywords=["E_IMPORT_7"], paths=["docs/n.md"])
        # matching (definer merge trigger): a key, a keyword; then a revert (definer revert trigger)
        by_key = fl.record_merge(conn, "att", sha, message="Fixes F-1")
        by_keyword = fl.record_merge(conn, "att", "beef01", message="Fixes E_IMPORT_7")
        conn.execute("INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('att', 'beef02', %s)",
                     (f"Revert\n\nThis reverts commit {sha}.",))
        # lifecycle (admin): dismiss, restore
        dismissed = fl.dismiss_finding(conn, imported.id, "accepted", "eve", "done")
        restored = fl.restore_finding(conn, imported.id, "eve", "not done")
        # claims (agent)
        claim = fl.claim_task(conn, "rt-1")
        assert claim is not None
        fl.start_task(conn, claim.task_id, session_id="sess-1")
        fl.complete_task(conn, claim.task_id)
        second = fl.claim_task(conn, "rt-1")
        assert second is not None
        fl.requeue_task(conn, second.task_id)
        fl.cancel_task(conn, tasks[2])
        third = fl.claim_task(conn, "rt-1")
        assert third is not None
        fl.fail_task(conn, third.task_id, "tool error")
        for table in ("finding", "issue", "agent_task", "injection", "finding_lifecycle"):
            assert conn.execute(f"SELECT count(*) FROM pg_temp.{table}").fetchone() == (0,)
    assert (first.outcome, again.outcome, again.report_count) == ("new", "duplicate", 2)
    assert (review.kept, review.added) == (1, 1)
    assert imported.status == "inserted" and imported.slug == "imported-note"
    assert by_key.superseded == [first.finding_id]
    assert by_keyword.superseded == [imported.id]
    assert (dismissed.state, restored.state) == ("dismissed", "active")
    assert attacker.execute("SELECT finding_key, state FROM ledger.finding_lifecycle ORDER BY id").fetchall() == [
        ("F-1", "active"), ("F-2", "active"), (None, "active")]
    assert attacker.execute("SELECT action, rule FROM ledger.supersession WHERE finding_id = %s ORDER BY id",
                            (first.finding_id,)).fetchall() == [("superseded", "key"), ("reopened", "revert")]
    rows = attacker.execute("SELECT id, status, dispatch_count, issue_snapshot ->> 'title_sha256' "
                            "FROM ledger.agent_task ORDER BY id").fetchall()
    title_sha = attacker.execute("SELECT encode(sha256(convert_to('an issue', 'UTF8')), 'hex')").fetchone()[0]
    assert rows == [(tasks[0], "completed", 1, title_sha), (tasks[1], "failed", 2, title_sha),
                    (tasks[2], "cancelled", 0, None)]
    assert (claim.task_id, second.task_id, third.task_id) == (tasks[0], tasks[1], tasks[1])
    assert hijack_log(attacker) == []


#: a temporary type named like a built-in one: the temporary schema is searched for types before the
#: search path unless the path names it last, so a function pinned to pg_catalog alone would declare its
#: `text` variables with this domain, and its CHECK would run the attacker's function as the owner
HOSTILE_TYPE = r"""
CREATE FUNCTION pg_temp.evil_check(pg_catalog.text) RETURNS boolean LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO public.hijack_log VALUES (current_user, 'pg_temp.text'); RETURN true; END $$;
CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (pg_temp.evil_check(VALUE));
CREATE DOMAIN pg_temp.jsonb AS pg_catalog.jsonb CHECK (pg_temp.evil_check(VALUE::pg_catalog.text));
"""


def test_a_temporary_type_named_like_a_built_in_one_runs_nothing(attacker: psycopg.Connection) -> None:
    """Every function pins pg_temp last: a caller's pg_temp.text or
    pg_temp.jsonb is never the type of a variable or cast inside the
    definer functions, the triggers or what they call."""
    with as_role(attacker, ATTACKER) as conn:
        conn.execute(HOSTILE_TYPE)
        conn.execute("SELECT 'x'::text")  # the control: the domain is live in this session
        assert hijack_log(attacker) == [(ATTACKER, "pg_temp.text")]
        f = fl.add_finding(conn, "att", "Login fails on Safari", finding_key="F-42", paths=["src/a.py:3"],
                           kind="drift")
        r = fl.record_merge(conn, "att", "cccc3", ["src/a.py"], message="Fixes F-42: the login on Safari",
                            hunks={"src/a.py": [[1, 0, 1, 2]]})
        fl.read_audit(conn, "att")
        conn.execute("SELECT * FROM ledger.read_prompt_findings('att')").fetchall()
    assert r.recorded and [(d.finding_id, d.action) for d in r.decisions if d.finding_id == f.id] == [
        (f.id, "superseded")]
    assert hijack_log(attacker) == [(ATTACKER, "pg_temp.text")]  # the control's row alone
