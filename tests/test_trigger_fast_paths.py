"""The finding trigger's fast paths (revision 0016_cheaper_finding_triggers)
keep a value without calling ledger._check_text / ledger._check_scope when
the check would return it unchanged. Property (hypothesis): for any value,
a finding INSERT stores exactly what the checks return, or fails with the
SQLSTATE the check raises, for every text field that has a fast path.

Each example is a few round trips; one connection serves all examples (each
uses its own scope), hence the suppressed function-scoped-fixture check.
"""

from __future__ import annotations

import itertools
from typing import Any

import psycopg
from hypothesis import HealthCheck, given, settings
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
    st.builds(lambda core, b: core + b, st.sampled_from(["x" * 199, "x" * 200, "y" * 999, "y" * 1000]),
              st.sampled_from(["", "z", " ", "\t"])),
)

#: field -> (the check the trigger calls when the fast path does not apply, as SQL of one argument %s)
CHECKS = {
    "title": "ledger._check_text(%s, 'finding.title', true, 1000)",
    "finding_key": "ledger._check_text(%s, 'finding.finding_key', false, 200)",
    "source": "ledger._check_text(%s, 'finding.source', false, 200)",
    "task_group": "ledger._check_text(%s, 'finding.task_group', false, 200)",
    "kind": "lower(ledger._check_text(coalesce(%s, 'review'), 'finding.kind', true, 100) COLLATE \"C\")",
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
def test_a_field_is_stored_as_its_check_returns_it(ledger_conn: psycopg.Connection, field: str,
                                                   value: str | None) -> None:
    scope = f"fast-{next(_scopes)}"
    cols = {"title": "t", "kind": "drift", field: value}
    names = ", ".join(cols)
    placeholders = ", ".join(["%s"] * len(cols))
    stored = outcome(ledger_conn, f"INSERT INTO ledger.finding (scope, {names}) VALUES (%s, {placeholders}) "
                     f"RETURNING {field}", (scope, *cols.values()))
    expected = outcome(ledger_conn, f"SELECT {CHECKS[field]}", (value,))
    assert stored == expected, (field, value)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=values)
def test_a_scope_is_stored_as_check_scope_returns_it(ledger_conn: psycopg.Connection, value: str | None) -> None:
    suffix = f"-{next(_scopes)}"
    scope = None if value is None else value + suffix
    stored = outcome(ledger_conn, "INSERT INTO ledger.finding (scope, title, kind) VALUES (%s, 't', 'drift') "
                     "RETURNING scope", (scope,))
    expected = outcome(ledger_conn, "SELECT ledger._check_scope(%s, 'finding.scope')", (scope,))
    assert stored == expected, scope
