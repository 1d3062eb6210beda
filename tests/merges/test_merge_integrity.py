"""Merges are immutable once recorded, and a redelivery must say what the
recorded merge says.

* No UPDATE of a recorded merge, by any role, the owner included; ``INSERT
  ... ON CONFLICT DO UPDATE`` is refused with a project SQLSTATE and a hint
  to use ``DO NOTHING``; the stored row and its audit stay as they were.
* An identical redelivery is a silent no-op; one with other paths, message
  or branch is LD007 naming what differs, through plain INSERT, multi-row
  INSERT, COPY and ``record_merge``.
* An abbreviated sha and the full one are the same commit, either way round.

Every case checks that no merge, finding or audit row changed.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from support.security import as_role
from support.touch_policy import drift_retires_on_touch

import findings_ledger as fl

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("spec", "other")

FULL = "abcdef12" + "34567890" * 4  # 40 digits
SHORT = FULL[:8]


def snapshot(conn: psycopg.Connection[Any]) -> list[list[tuple[Any, ...]]]:
    return [conn.execute(q).fetchall() for q in (
        "SELECT m.* FROM ledger.merge m ORDER BY id",
        "SELECT f.* FROM ledger.finding f ORDER BY id",
        "SELECT a.* FROM ledger.supersession a ORDER BY id",
    )]


@pytest.fixture()
def recorded(ledger_conn: psycopg.Connection[Any]) -> psycopg.Connection[Any]:
    """Scope 'spec': a drift finding on docs/a.md superseded by merge 1
    (SHORT, message 'Fix a', paths docs/a.md and src/b.py, branch main), and
    an active finding on src/c.py."""
    fl.add_finding(ledger_conn, "spec", "a is stale", paths=["docs/a.md"], kind="drift")
    fl.add_finding(ledger_conn, "spec", "c is stale", paths=["src/c.py"], kind="drift")
    m = fl.record_merge(ledger_conn, "spec", SHORT, ["docs/a.md", "src/b.py"], message="Fix a", branch="main")
    assert m.superseded == [1]
    return ledger_conn


# --- 1. merges cannot be rewritten -------------------------------------------------------------

@pytest.mark.parametrize("statement", [
    "UPDATE ledger.merge SET message = 'Fix c' WHERE id = 1",
    "UPDATE ledger.merge SET paths = '{src/c.py}' WHERE id = 1",
    "UPDATE ledger.merge SET branch = 'dev', node_id = 'x' WHERE id = 1",
    "UPDATE ledger.merge SET commit_sha = 'ffff' WHERE id = 1",
    "UPDATE ledger.merge SET processed = false WHERE id = 1",
    "UPDATE ledger.merge SET message = message WHERE id = 1",  # even a value equal to the stored one
])
def test_the_owner_cannot_update_a_recorded_merge(recorded: psycopg.Connection[Any], statement: str) -> None:
    before = snapshot(recorded)
    with pytest.raises(psycopg.Error) as info:
        recorded.execute(statement)
    assert info.value.sqlstate == "LD006"
    assert "merge 1 of scope 'spec'" in info.value.diag.message_primary
    assert "ON CONFLICT (scope, commit_sha) DO NOTHING" in info.value.diag.message_hint
    assert snapshot(recorded) == before


def test_the_error_names_the_columns_an_update_changes(recorded: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.Error) as info:
        recorded.execute("UPDATE ledger.merge SET message = 'Fix c', paths = '{src/c.py}' WHERE id = 1")
    assert "changes merge.message, merge.paths" in info.value.diag.message_primary


@pytest.mark.parametrize(("setting", "message", "paths", "code"), [
    # the example of the issue: a rewrite of the message is a conflicting delivery first
    ("message = EXCLUDED.message", "Fix c", ["docs/a.md", "src/b.py"], "LD007"),
    ("paths = EXCLUDED.paths", "Fix a", ["src/c.py"], "LD007"),
    # an identical row reaches the UPDATE, which is refused as such
    ("message = EXCLUDED.message", "Fix a", ["docs/a.md", "src/b.py"], "LD006"),
    ("node_id = EXCLUDED.node_id", "Fix a", ["src/b.py", "docs/a.md"], "LD006"),
])
def test_on_conflict_do_update_is_refused_with_a_hint_to_do_nothing(
    recorded: psycopg.Connection[Any], setting: str, message: str, paths: list[str], code: str
) -> None:
    before = snapshot(recorded)
    with pytest.raises(psycopg.Error) as info:
        recorded.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch, node_id) "
            "VALUES ('spec', %s, %s, %s, 'main', 'n-2') ON CONFLICT (scope, commit_sha) DO UPDATE SET " + setting,
            (SHORT, message, paths))
    assert info.value.sqlstate == code
    assert "ON CONFLICT (scope, commit_sha) DO NOTHING" in info.value.diag.message_hint
    assert snapshot(recorded) == before


@pytest.mark.parametrize("statement", [
    "UPDATE ledger.merge SET message = 'Fix c' WHERE id = 1",
    "INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec', 'abcdef12', 'x') "
    "ON CONFLICT (scope, commit_sha) DO UPDATE SET message = EXCLUDED.message",
])
@pytest.mark.parametrize("role", ["ledger_writer", "ledger_admin", "ledger_reader", "ledger_agent"])
def test_no_ledger_role_may_update_a_merge_at_all(recorded: psycopg.Connection[Any], role: str, statement: str) -> None:
    before = snapshot(recorded)
    with as_role(recorded, role) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)
    assert snapshot(recorded) == before


def test_a_merge_not_processed_yet_can_still_be_corrected_and_reconciled(ledger_conn: psycopg.Connection) -> None:
    """A merge loaded while triggers did not fire was not decided on: its
    owner may fix it, and reconcile normalises it and marks it processed,
    after which it is immutable too."""
    fl.add_finding(ledger_conn, "spec", "stale", paths=["a.py"], kind="drift")
    ledger_conn.execute("SET session_replication_role = replica")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'aaaa', '{../a.py}')")
    ledger_conn.execute("RESET session_replication_role")
    ledger_conn.execute("UPDATE ledger.merge SET paths = '{./a.py}' WHERE commit_sha = 'aaaa'")
    assert [r.superseded for r in fl.reconcile(ledger_conn, "spec")] == [[1]]
    with pytest.raises(fl.MergeImmutable):
        with fl.errors.translate():
            ledger_conn.execute("UPDATE ledger.merge SET paths = '{b.py}' WHERE commit_sha = 'aaaa'")


# --- 2. redelivery ----------------------------------------------------------------------------

@pytest.mark.parametrize("sha", [SHORT, SHORT.upper(), FULL, FULL[:12], f"  {FULL}\n"])
def test_an_identical_redelivery_is_a_silent_no_op(recorded: psycopg.Connection[Any], sha: str) -> None:
    """The same commit (also by its full or a longer abbreviated sha), the
    same set of paths (spelled and ordered otherwise), message (but trailing
    white space) and branch, from another node: nothing happens."""
    before = snapshot(recorded)
    cur = recorded.execute(
        "INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths, branch) "
        "VALUES ('spec', %s, 'other-node', 'Fix a\n', '{./src/b.py:3,docs/a.md}', 'refs/heads/main') "
        "ON CONFLICT DO NOTHING", (sha,))
    assert cur.rowcount == 0
    again = fl.record_merge(recorded, "spec", sha, ["src/b.py", "docs/a.md"], message="Fix a", branch="main")
    assert (again.recorded, again.merge_id, again.superseded) == (False, 1, [1])
    assert snapshot(recorded) == before


def test_a_plain_insert_of_the_full_sha_is_a_duplicate(recorded: psycopg.Connection[Any]) -> None:
    before = snapshot(recorded)
    with pytest.raises(psycopg.errors.UniqueViolation) as info:
        recorded.execute("INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch) "
                         "VALUES ('spec', %s, 'Fix a', '{docs/a.md,src/b.py}', 'main')", (FULL,))
    assert type(fl.errors.error_for(info.value)) is fl.DuplicateMerge
    assert snapshot(recorded) == before


def test_an_abbreviation_of_a_recorded_full_sha_is_the_same_commit(ledger_conn: psycopg.Connection) -> None:
    first = fl.record_merge(ledger_conn, "spec", FULL, ["a.py"])
    for sha in (SHORT, FULL[:4], FULL[:39]):
        again = fl.record_merge(ledger_conn, "spec", sha, ["a.py"])
        assert (again.recorded, again.merge_id) == (False, first.merge_id)
    assert ledger_conn.execute("SELECT commit_sha FROM ledger.merge").fetchall() == [(FULL,)]
    # another scope is another ledger: the same sha is a merge of its own there
    assert fl.record_merge(ledger_conn, "other", SHORT, ["a.py"]).recorded is True


CONFLICTS = [
    # (paths, message, branch, what the error names)
    (["docs/a.md"], "Fix a", "main", "paths (only recorded: src/b.py; only delivered: none)"),
    (["docs/a.md", "src/b.py", "src/c.py"], "Fix a", "main", "only delivered: src/c.py"),
    (["docs/a.md", "src/b.py"], "Fix a and c", "main", "message (recorded 'Fix a', delivered 'Fix a and c')"),
    (["docs/a.md", "src/b.py"], "Fix a", "release", "branch (recorded 'main', delivered 'release')"),
    (["docs/a.md", "src/b.py"], "Fix a", None, "branch (recorded 'main', delivered NULL)"),
    (["src/c.py"], "Fix c", "dev", "paths (only recorded: docs/a.md, src/b.py; only delivered: src/c.py); message"),
]


@pytest.mark.parametrize(("paths", "message", "branch", "named"), CONFLICTS)
@pytest.mark.parametrize("sha", [SHORT, FULL])
@pytest.mark.parametrize("how", ["do nothing", "plain", "multi-row", "copy", "api"])
def test_a_conflicting_redelivery_is_an_error_naming_what_differs(
    recorded: psycopg.Connection[Any], paths: list[str], message: str, branch: str | None, named: str, sha: str,
    how: str
) -> None:
    before = snapshot(recorded)
    row = ("spec", sha, message, paths, branch)
    insert = "INSERT INTO ledger.merge (scope, commit_sha, message, paths, branch) VALUES (%s, %s, %s, %s, %s)"
    with pytest.raises((psycopg.Error, fl.LedgerError)) as info:
        if how == "do nothing":
            recorded.execute(insert + " ON CONFLICT (scope, commit_sha) DO NOTHING", row)
        elif how == "plain":
            recorded.execute(insert, row)
        elif how == "multi-row":  # a good new merge first: the whole statement goes
            recorded.execute(insert.replace("VALUES (", "VALUES ('spec', 'cccc', '', '{src/c.py}', NULL), ("), row)
        elif how == "copy":
            copy = "COPY ledger.merge (scope, commit_sha, message, paths, branch) FROM STDIN"
            with recorded.cursor().copy(copy) as cp:
                cp.write_row(("spec", "cccc", "", ["src/c.py"], None))
                cp.write_row(row)
        else:
            fl.record_merge(recorded, "spec", sha, paths, message=message, branch=branch)
    err = info.value
    if isinstance(err, fl.LedgerError):
        assert type(err) is fl.MergeConflict
        err = err.__cause__  # type: ignore[assignment]
    assert isinstance(err, psycopg.Error) and err.sqlstate == "LD007"
    text = err.diag.message_primary or ""
    assert f"merge.commit_sha '{sha}' in scope 'spec': merge 1 (commit {SHORT})" in text
    assert named in text
    assert "DO NOTHING" in (err.diag.message_hint or "")
    if recorded.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
        recorded.rollback()
    assert snapshot(recorded) == before


def test_an_ambiguous_abbreviation_is_an_error(ledger_conn: psycopg.Connection) -> None:
    fl.record_merge(ledger_conn, "spec", "abcd1111", ["a.py"])
    fl.record_merge(ledger_conn, "spec", "abcd2222", ["a.py"])
    before = snapshot(ledger_conn)
    with pytest.raises(fl.MergeConflict) as info:
        fl.record_merge(ledger_conn, "spec", "abcd", ["a.py"])
    assert "'abcd' matches 2 recorded merges of scope 'spec' by abbreviation (abcd1111, abcd2222)" in str(info.value)
    with pytest.raises(psycopg.Error) as raw:
        ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec', 'ABCD', '{a.py}') "
                            "ON CONFLICT DO NOTHING")
    assert raw.value.sqlstate == "LD007"
    assert snapshot(ledger_conn) == before
    # the full sha of one of them is not ambiguous
    assert fl.record_merge(ledger_conn, "spec", "abcd1111" + "0" * 32, ["a.py"]).merge_id == 1


def test_a_redelivery_to_a_merge_not_processed_yet_compares_normalised_values(ledger_conn: psycopg.Connection) -> None:
    ledger_conn.execute("SET session_replication_role = replica")
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths, branch) "
                        "VALUES ('spec', 'aaaa', '{./a.py}', 'refs/heads/main')")
    ledger_conn.execute("RESET session_replication_role")
    assert fl.record_merge(ledger_conn, "spec", "aaaa", ["a.py"], branch="main").recorded is False
    with pytest.raises(fl.MergeConflict):
        fl.record_merge(ledger_conn, "spec", "aaaa", ["b.py"], branch="main")
