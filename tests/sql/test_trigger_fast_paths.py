"""The BEFORE triggers' fast paths (of the finding, merge and task row
triggers) keep a value without calling
ledger._check_text / ledger._check_scope when the check would return it
unchanged. Property (hypothesis): for any value, an INSERT of a finding, a merge or
a task, and an UPDATE of a task written without triggers, store exactly
what the checks return, or fail with the SQLSTATE the check raises, for
every text field that has a fast path.

Each example is a few round trips; one connection serves all examples (each
uses its own scope), hence the suppressed function-scoped-fixture check.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import psycopg
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

_scopes = itertools.count()

# What the checks look at: white space at either end, control characters,
# commas (scopes), length limits, non-ASCII letters and spaces, the empty value.
PIECES = ["a", "Z", "0", "-", ".", "é", "日", " ", "\t", "\n", "\x0b", "\x01", "\x7f", ",", "\u00a0", "\u200b",
          "x" * 60]
EDGES = ["", "", "", " ", "\t", "\n", "\r", "\x0b", "\f", "\x01", "\x1f", "\x7f", "\u00a0", "  "]
values = st.one_of(
    st.none(),
    st.builds(lambda a, core, b: a + core + b, st.sampled_from(EDGES),
              st.lists(st.sampled_from(PIECES), max_size=5).map("".join), st.sampled_from(EDGES)),
    st.builds(lambda core, b: core + b,
              st.sampled_from(["x" * 199, "x" * 200, "y" * 999, "y" * 1000, "é" * 199, "日" * 200, "é" * 999]),
              st.sampled_from(["", "z", "é", " ", "\t"])),
)

#: field -> (the check the trigger calls when the fast path does not apply, as SQL of one argument %s)
CHECKS = {
    "title": "ledger._check_text(%s, 'finding.title', true, 1000)",
    "finding_key": "ledger._check_text(%s, 'finding.finding_key', false, 200)",
    "source": "ledger._check_text(%s, 'finding.source', false, 200)",
    "task_group": "ledger._check_text(%s, 'finding.task_group', false, 200)",
    "kind": "lower(ledger._check_text(coalesce(%s, 'review'), 'finding.kind', true, 100) COLLATE \"C\")",
    # stored as the check returns it, then mapped (major -> high) or refused (LD003) by the same rule
    "severity": "lower(ledger._check_text(coalesce(%s, 'medium'), 'finding.severity', true, 20) COLLATE \"C\")",
    "expects": "lower(ledger._check_text(coalesce(%s, 'change'), 'finding.expects', true, 20) COLLATE \"C\")",
}
ALLOWED = {"severity": {"critical", "high", "medium", "low", "info", "major", "minor"},
           "expects": {"change", "present", "absent"}}
TASK_CHECKS = {
    "agent_id": "ledger._check_text(%s, 'agent_task.agent_id', true, 200)",
    "runtime_id": "ledger._check_text(%s, 'agent_task.runtime_id', true, 200)",
}


def outcome(conn: psycopg.Connection[Any], sql: str, params: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        with conn.transaction():
            row = conn.execute(sql, params).fetchone()
    except psycopg.Error as exc:
        return "error", exc.sqlstate
    assert row is not None
    return "ok", row[0]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(sorted(CHECKS)), value=values)
@example(field="title", value="a ")
@example(field="source", value="\tsrc")
@example(field="kind", value="Drift\n")
@example(field="severity", value="MAJOR")
@example(field="finding_key", value="é" * 201)
def test_a_field_is_stored_as_its_check_returns_it(ledger_conn: psycopg.Connection, field: str,
                                                   value: str | None) -> None:
    scope = f"fast-{next(_scopes)}"
    cols = {"title": "t", "kind": "drift", field: value}
    names = ", ".join(cols)
    placeholders = ", ".join(["%s"] * len(cols))
    stored = outcome(ledger_conn, f"INSERT INTO ledger.finding (scope, {names}) VALUES (%s, {placeholders}) "
                     f"RETURNING {field}", (scope, *cols.values()))
    expected = outcome(ledger_conn, f"SELECT {CHECKS[field]}", (value,))
    if field in ALLOWED and expected[0] == "ok":
        mapped = {"major": "high", "minor": "low"}.get(expected[1], expected[1])
        expected = ("ok", mapped) if expected[1] in ALLOWED[field] else ("error", "LD003")
    assert stored == expected, (field, value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=values)
@example(value="scope ")
@example(value="a,b")
@example(value="a\u200b")
def test_a_scope_is_stored_as_check_scope_returns_it(ledger_conn: psycopg.Connection, value: str | None) -> None:
    scope = value  # a scope may repeat across examples: these findings have no key
    stored = outcome(ledger_conn, "INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, 't', 'drift') "
                     "RETURNING scope", (scope,))
    expected = outcome(ledger_conn, "SELECT ledger._check_scope(%s, 'finding.scope')", (scope,))
    assert stored == expected, scope


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(sorted(TASK_CHECKS)), value=values, replica=st.booleans())
@example(field="agent_id", value="a ", replica=True)
@example(field="runtime_id", value="rt\x01", replica=True)
def test_a_task_field_is_stored_as_its_check_returns_it(ledger_conn: psycopg.Connection, field: str,
                                                        value: str | None, replica: bool) -> None:
    """On INSERT, and on an UPDATE of a row written without triggers
    (session_replication_role = replica, as an import writes history): the
    UPDATE checks the value it finds there, as the INSERT would have."""
    issue = ledger_conn.execute("INSERT INTO ledger.issue (scope, title) VALUES ('fast-tasks', 't') RETURNING id")
    issue_id = issue.fetchone()[0]
    cols = {"agent_id": "agent", "runtime_id": "rt", field: value}
    expected = outcome(ledger_conn, f"SELECT {TASK_CHECKS[field]}", (value,))
    if not replica:
        stored = outcome(ledger_conn, "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) "
                         f"VALUES (%s, %s, %s) RETURNING {field}", (issue_id, cols["agent_id"], cols["runtime_id"]))
        assert stored == expected, (field, value)
        return
    if value is None:
        return  # NOT NULL columns: a replica row cannot hold it either
    with ledger_conn.transaction():
        ledger_conn.execute("SET LOCAL session_replication_role = replica")
        # (no trigger fills scope here: a writer without triggers sends the issue's, as for every NOT NULL column)
        task_id = ledger_conn.execute(
            "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, scope) VALUES (%s, %s, %s, 'fast-tasks')"
            " RETURNING id", (issue_id, cols["agent_id"], cols["runtime_id"])).fetchone()[0]
    stored = outcome(ledger_conn, f"UPDATE ledger.agent_task SET force_fresh_session = true WHERE id = %s "
                     f"RETURNING {field}", (task_id,))
    assert stored == expected, (field, value)


SHA_EDGES = ["", "", "", "", "", " ", "\t", "\n", "\x01"]
SHAS = st.one_of(values, st.builds(lambda a, core, b: a + core + b, st.sampled_from(SHA_EDGES),
                                   st.sampled_from(["abcd", "ABCD1234", "abc", "g123", "0123456789abcdef", "a" * 64,
                                                    "a" * 65, "dead beef", "DEADbeef", "é1234"]),
                                   st.sampled_from(SHA_EDGES)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["commit_sha", "node_id", "scope"]), value=SHAS)
@example(field="commit_sha", value="ABCD1234")
@example(field="commit_sha", value=" abcd1234")
@example(field="node_id", value="node ")
@example(field="scope", value="a b")
def test_a_merge_field_is_stored_as_its_check_returns_it(ledger_conn: psycopg.Connection, field: str,
                                                         value: str | None) -> None:
    """tg_merge__prepare's fast paths: commit_sha (checked, lower-cased, 4-64
    hexadecimal digits), node_id and scope stored as the checks return them."""
    n = next(_scopes)
    cols: dict[str, Any] = {"scope": f"fast-merges-{n}", "commit_sha": f"{n:08x}", "node_id": None, field: value}
    stored = outcome(ledger_conn, "INSERT INTO ledger.merge (scope, commit_sha, node_id) VALUES (%s, %s, %s) "
                     f"RETURNING {field}", (cols["scope"], cols["commit_sha"], cols["node_id"]))
    if field == "commit_sha":
        check = "SELECT lower(ledger._check_text(%s, 'merge.commit_sha', true, 64) COLLATE \"C\")"
        expected = outcome(ledger_conn, check, (value,))
        if expected[0] == "ok" and not re.fullmatch(r"[0-9a-f]{4,64}", expected[1]):
            expected = ("error", "LD003")
    elif field == "node_id":
        expected = outcome(ledger_conn, "SELECT ledger._check_text(%s, 'merge.node_id', false, 200)", (value,))
    else:
        expected = outcome(ledger_conn, "SELECT ledger._check_scope(%s, 'merge.scope')", (value,))
    assert stored == expected, (field, value)
