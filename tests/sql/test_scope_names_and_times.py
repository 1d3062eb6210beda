"""Scope names every feature can express, and no writer-supplied time in the
future.

* A scope is listed in the comma-separated setting ``ledger.scopes`` of
  per-scope row-level security, so a comma in its name is refused (LD003),
  as are control and format characters and a name of white space only;
  ``ledger.workspace_scope`` percent-encodes them, so its keys always pass.
* ``finding.created_at``, ``merge.merged_at`` and ``injection.injected_at``
  more than 5 minutes after the server's clock (or infinite) are refused
  (LD003); up to 5 minutes ahead (clock skew) is stored as the time of the
  write; the past is stored as given.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
from support.security import as_role, counts

import findings_ledger as fl

WRITES: dict[str, Callable[[psycopg.Connection[Any], str], object]] = {
    "INSERT finding": lambda c, s: c.execute("INSERT INTO ledger.finding (scope, title) VALUES (%s, 't')", (s,)),
    "INSERT merge": lambda c, s: c.execute("INSERT INTO ledger.merge (scope, commit_sha) VALUES (%s, 'abcd')", (s,)),
    "INSERT scope": lambda c, s: c.execute("INSERT INTO ledger.scope (scope) VALUES (%s)", (s,)),
    "INSERT issue": lambda c, s: c.execute("INSERT INTO ledger.issue (scope, title) VALUES (%s, 't')", (s,)),
    "COPY finding": lambda c, s: _copy(c, s),
    "add_finding": lambda c, s: fl.add_finding(c, s, "t"),
    "record_merge": lambda c, s: fl.record_merge(c, s, "abcd"),
    "set_hygiene_mode": lambda c, s: fl.set_hygiene_mode(c, s, "dry"),
    "add_issue": lambda c, s: fl.add_issue(c, s, "t"),
    "report_finding": lambda c, s: fl.report_finding(c, s, "k", "t"),
    "replace_findings": lambda c, s: fl.replace_findings(c, s, "run-1", [{"finding_key": "k", "title": "t"}]),
    "import_finding": lambda c, s: fl.import_finding(c, s, "t", slug="a-slug"),
}


def _copy(conn: psycopg.Connection[Any], scope: str) -> None:
    with conn.cursor().copy("COPY ledger.finding (scope, title) FROM STDIN") as copy:
        copy.write_row((scope, "t"))


@pytest.mark.parametrize(("scope", "code", "why"), [
    ("a,b", "LD003", "contains a comma"),
    ("spec-07,spec-08", "LD003", "contains a comma"),
    (",", "LD003", "contains a comma"),
    ("spec\u200b", "LD003", "control or invisible format character"),
    ("\u202espec", "LD003", "control or invisible format character"),
    ("spec\u0085x", "LD003", "control or invisible format character"),
    ("\u00a0\u3000", "LD002", "white space only"),
])
@pytest.mark.parametrize("how", list(WRITES))
def test_a_scope_name_ledger_scopes_cannot_list_is_refused(
    ledger_conn: psycopg.Connection[Any], scope: str, code: str, why: str, how: str
) -> None:
    before = counts(ledger_conn)
    with pytest.raises((psycopg.Error, fl.LedgerError)) as info:
        WRITES[how](ledger_conn, scope)
    err = info.value
    assert err.sqlstate == code, str(err)
    assert why in str(err) and ".scope" in str(err)  # finding.scope, merge.scope, scope.scope, issue.scope
    assert counts(ledger_conn) == before


def test_workspace_scopes_are_always_valid_scope_names(ledger_conn: psycopg.Connection[Any]) -> None:
    key = fl.workspace_scope(ledger_conn, "/work/a,b/\u200bc")
    assert key == "-work-a%2Cb-%E2%80%8Bc"
    fl.add_finding(ledger_conn, key, "t")
    fl.enable_scope_rls(ledger_conn)
    with as_role(ledger_conn, "ledger_reader", scopes=f"other, {key}") as conn:
        assert [f.scope for f in fl.active_findings(conn, key)] == [key]


# --- times -----------------------------------------------------------------------------------

def now(conn: psycopg.Connection[Any]) -> datetime:
    row = conn.execute("SELECT now()").fetchone()
    assert row is not None
    return row[0]


@pytest.mark.parametrize("value", [datetime(9999, 1, 1, tzinfo=timezone.utc), "infinity", "-infinity", "+10 minutes"])
@pytest.mark.parametrize("column", ["finding.created_at", "merge.merged_at", "injection.injected_at"])
def test_a_time_in_the_future_is_refused(ledger_conn: psycopg.Connection[Any], column: str, value: Any) -> None:
    fl.add_finding(ledger_conn, "spec", "seen")
    before = counts(ledger_conn)
    if value == "+10 minutes":
        value = now(ledger_conn) + timedelta(minutes=10)
    insert = {
        "finding.created_at": "INSERT INTO ledger.finding (scope, title, created_at) VALUES ('spec', 't', %s)",
        "merge.merged_at": "INSERT INTO ledger.merge (scope, commit_sha, merged_at) VALUES ('spec', 'abcd', %s)",
        "injection.injected_at": "INSERT INTO ledger.injection (session_id, finding_id, injected_at) "
                                 "VALUES ('s', 1, %s)",
    }[column]
    with pytest.raises(psycopg.Error) as info:
        ledger_conn.execute(insert, (value,))
    assert info.value.sqlstate == "LD003"
    assert f"invalid {column}:" in info.value.diag.message_primary
    assert counts(ledger_conn) == before


def test_merged_at_in_the_future_through_the_api(ledger_conn: psycopg.Connection[Any]) -> None:
    with pytest.raises(fl.ValueInvalid, match="merge.merged_at"):
        fl.record_merge(ledger_conn, "spec", "abcd", merged_at=datetime(9999, 1, 1, tzinfo=timezone.utc))
    assert counts(ledger_conn)["merge"] == 0


def test_clock_skew_is_clamped_and_the_past_kept(ledger_conn: psycopg.Connection[Any]) -> None:
    with ledger_conn.transaction():
        t = now(ledger_conn)
        skewed, past = t + timedelta(minutes=4), datetime(2020, 5, 17, 8, 0, tzinfo=timezone.utc)
        rows = [ledger_conn.execute(
            "INSERT INTO ledger.finding (scope, title, created_at) VALUES ('spec', %s, %s) RETURNING created_at",
            (f"t{i}", v)).fetchone()[0] for i, v in enumerate((skewed, past))]
        merged = fl.record_merge(ledger_conn, "spec", "abcd", merged_at=skewed)
        stored = ledger_conn.execute("SELECT merged_at FROM ledger.merge WHERE id = %s", (merged.merge_id,))
        injected = ledger_conn.execute("INSERT INTO ledger.injection (session_id, finding_id, injected_at) "
                                       "VALUES ('s', 1, %s) RETURNING injected_at", (skewed,)).fetchone()
        assert rows == [t, past]
        assert stored.fetchone() == (t,) and injected == (t,)
