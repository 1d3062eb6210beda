"""Hostile values a writer can put in a row, each refused in SQL whoever
writes it, and hostile NOTIFY payloads skipped by the listener.

* Times: every time a writer supplies (finding.created_at and observed_at,
  merge.merged_at, issue.created_at, agent_task.created_at) must be finite,
  not before year 1 (every client loads it: psycopg raises DataError for
  year 0 and TypeError for infinity) and at most 5 minutes ahead; LD003
  names the column and the value, nothing is written. The attacks are the
  ones that made ``fl.read_prompt_findings`` and ``fl.active_findings``
  fail for a whole scope.
* Redelivery: a merge redelivered with other added, deleted, hunks or
  merged_at is refused (LD007 naming the field), and a full sha and its
  abbreviation delivered at the same moment by two connections record one
  merge, not two.
* Hunks are bounded per path and per merge (LD004), a directory as a hunks
  key is named as a directory, two anchors keys naming one path are LD003,
  line numbers with leading zeros are read, a suffix followed by a no-break
  space is kept as an anchor.
* A NOTIFY ledger_finding with an id above 2^63-1 from a role without ledger
  rights is skipped with a warning, not an UndefinedFunction.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import psycopg
import pytest
from support.security import as_role, connect_as, counts, wait_until_blocked

import findings_ledger as fl
from findings_ledger.errors import LedgerError

SHA = "0123456789abcdef0123456789abcdef01234567"


def _refused(conn: psycopg.Connection[Any], statement: str, params: tuple[Any, ...], code: str,
             *words: str, role: str | None = None) -> str:
    before = counts(conn)
    with pytest.raises(psycopg.Error) as info:
        if role is None:
            conn.execute(statement, params)
        else:
            with as_role(conn, role):
                conn.execute(statement, params)
    assert info.value.sqlstate == code, info.value
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert counts(conn) == before
    return message


@pytest.mark.parametrize(("column", "value", "why"), [
    ("observed_at", "infinity", "not a point in time"),
    ("observed_at", "-infinity", "not a point in time"),
    ("observed_at", "0044-03-15 BC", "before year 1"),
    ("observed_at", "2999-01-01", "in the future"),
    ("created_at", "0044-03-15 BC", "before year 1"),
    ("created_at", "0001-01-01 00:00+00", "before year 1"),
])
def test_a_finding_time_no_client_can_load_is_refused(
    ledger_conn: psycopg.Connection[Any], column: str, value: str, why: str
) -> None:
    _refused(ledger_conn,
             f"INSERT INTO ledger.finding (scope, kind, title, paths, {column}) "  # noqa: S608 - column from the list
             "VALUES ('s', 'drift', 'x', '{h.py}', %s)", (value,),
             "LD003", f"finding.{column}", why, role="ledger_writer")
    # nothing was written, not even the scope
    assert ledger_conn.execute("SELECT count(*) FROM ledger.scope WHERE scope = 's'").fetchone() == (0,)


def test_the_attacks_as_written_leave_the_scope_readable(ledger_conn: psycopg.Connection[Any]) -> None:
    fl.add_finding(ledger_conn, "s", "kept", paths=["k.py"])
    with as_role(ledger_conn, "ledger_writer"):
        for statement in ("INSERT INTO ledger.finding (scope,kind,title,paths,observed_at) "
                          "VALUES ('s','drift','x','{h.py}','infinity')",
                          "INSERT INTO ledger.finding (scope,kind,title,paths,created_at) "
                          "VALUES ('s','drift','x','{h.py}','0044-03-15 BC')"):
            with pytest.raises(psycopg.Error) as info:
                ledger_conn.execute(statement)
            assert info.value.sqlstate == "LD003"
    assert [f.title for f in fl.active_findings(ledger_conn, "s")] == ["kept"]
    assert len(ledger_conn.execute("SELECT * FROM ledger.active_finding WHERE scope = 's'").fetchall()) == 1
    fl.read_prompt_findings(ledger_conn, "s")


def test_an_observed_at_update_is_checked_too(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = fl.add_finding(ledger_conn, "s", "t", paths=["a.py"]).id
    _refused(ledger_conn, "UPDATE ledger.finding SET observed_at = 'infinity' WHERE id = %s", (fid,),
             "LD003", "finding.observed_at")


@pytest.mark.parametrize("value", ["-infinity", "0044-03-15 BC", "2999-01-01"])
def test_a_merge_time_no_client_can_load_is_refused(ledger_conn: psycopg.Connection[Any], value: str) -> None:
    _refused(ledger_conn, "INSERT INTO ledger.merge (scope, commit_sha, merged_at) VALUES ('s', 'abcd1', %s)",
             (value,), "LD003", "merge.merged_at", role="ledger_writer")


@pytest.mark.parametrize(("table", "column", "statement"), [
    ("issue", "created_at", "INSERT INTO ledger.issue (scope, title, created_at) VALUES ('s', 't', %s)"),
    ("issue", "updated_at", "INSERT INTO ledger.issue (scope, title, updated_at) VALUES ('s', 't', %s)"),
])
@pytest.mark.parametrize("value", ["infinity", "0044-03-15 BC", "2999-01-01"])
def test_an_issue_time_no_client_can_load_is_refused(
    ledger_conn: psycopg.Connection[Any], table: str, column: str, statement: str, value: str
) -> None:
    _refused(ledger_conn, statement, (value,), "LD003", f"{table}.{column}")


@pytest.mark.parametrize("value", ["infinity", "0044-03-15 BC", "2999-01-01"])
def test_a_task_time_no_client_can_load_is_refused(ledger_conn: psycopg.Connection[Any], value: str) -> None:
    issue = fl.add_issue(ledger_conn, "s", "t").id
    _refused(ledger_conn, "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, created_at) "
             "VALUES (%s, 'a', 'r', %s)", (issue, value), "LD003", "agent_task.created_at")
    task = ledger_conn.execute("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (%s, 'a', 'r') "
                               "RETURNING id", (issue,)).fetchone()
    assert task is not None
    _refused(ledger_conn, "UPDATE ledger.agent_task SET status = 'cancelled', completed_at = %s WHERE id = %s",
             (value, task[0]), "LD003", "agent_task.completed_at")


def test_the_cli_names_a_client_side_load_error_as_the_clients(
    ledger_dsn: str, ledger_conn: psycopg.Connection[Any]
) -> None:
    from findings_ledger.cli.helpers import explain

    with pytest.raises(psycopg.DataError) as info:
        ledger_conn.execute("SELECT '0044-03-15 BC'::timestamptz").fetchone()
    message = explain(info.value)
    assert message is not None
    assert "PostgreSQL refused" not in message
    assert "raised by the client" in message


def _deliver(conn: psycopg.Connection[Any], **extra: Any) -> int:
    cols = {"scope": "s", "commit_sha": SHA, "message": "fix a", "paths": ["a.py", "b.py"], **extra}
    cur = conn.execute(
        "INSERT INTO ledger.merge ({}) VALUES ({}) ON CONFLICT (scope, commit_sha) DO NOTHING".format(  # noqa: S608
            ", ".join(cols), ", ".join(["%s"] * len(cols))),
        tuple(json.dumps(v) if isinstance(v, dict) else v for v in cols.values()))
    return cur.rowcount


@pytest.mark.parametrize(("field", "first", "again"), [
    ("hunks", {"a.py": [[1, 1, 1, 1]]}, {"a.py": [[90, 1, 90, 1]]}),
    ("hunks", {"a.py": [[1, 1, 1, 1]]}, None),
    ("added", ["a.py"], ["b.py"]),
    ("added", None, ["a.py"]),
    ("deleted", ["b.py"], []),
    ("deleted", None, ["b.py"]),
    ("merged_at", "2024-01-01 00:00+00", "2024-06-01 00:00+00"),
])
def test_a_redelivery_with_other_change_kinds_is_named(
    ledger_conn: psycopg.Connection[Any], field: str, first: Any, again: Any
) -> None:
    assert _deliver(ledger_conn, **({field: first} if first is not None else {})) == 1
    before = counts(ledger_conn)
    with pytest.raises(psycopg.Error) as info:
        _deliver(ledger_conn, **({field: again} if again is not None else {}))
    assert info.value.sqlstate == "LD007", info.value
    assert f"{field} (" in str(info.value)
    assert counts(ledger_conn) == before


def test_an_identical_redelivery_is_still_skipped(ledger_conn: psycopg.Connection[Any]) -> None:
    extra = {"hunks": {"a.py": [[1, 1, 1, 1]]}, "added": ["a.py"], "deleted": ["b.py"],
             "merged_at": "2024-01-01 00:00+00"}
    assert _deliver(ledger_conn, **extra) == 1
    assert _deliver(ledger_conn, **extra) == 0
    assert _deliver(ledger_conn, **{**extra, "merged_at": None}) == 0  # no merged_at: the recorded one stands
    assert _deliver(ledger_conn, commit_sha=SHA[:7], **extra) == 0


@pytest.mark.parametrize("order", ["full first", "abbreviation first"])
def test_a_full_sha_and_its_abbreviation_at_once_record_one_merge(ledger_dsn: str, order: str) -> None:
    shas = [SHA, SHA[:7]] if order == "full first" else [SHA[:7], SHA]
    with psycopg.connect(ledger_dsn) as first, connect_as(ledger_dsn) as second, \
            connect_as(ledger_dsn) as observer:
        # the scope exists already: its creation would otherwise make the second wait on the scope row
        observer.execute("INSERT INTO ledger.scope (scope) VALUES ('s')")
        first.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', %s, '{a.py}')", (shas[0],))
        outcome: list[object] = []

        def deliver() -> None:
            try:
                cur = second.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', %s, '{a.py}') "
                                     "ON CONFLICT (scope, commit_sha) DO NOTHING", (shas[1],))
                outcome.append(cur.rowcount)
            except psycopg.Error as exc:  # pragma: no cover - reported by the assert below
                outcome.append(exc)

        worker = threading.Thread(target=deliver)
        worker.start()
        wait_until_blocked(observer, second.info.backend_pid)
        first.commit()
        worker.join()
        assert outcome == [0]
        rows = observer.execute("SELECT commit_sha FROM ledger.merge WHERE scope = 's'").fetchall()
    assert rows == [(shas[0],)]


def test_hunks_are_bounded_per_path(ledger_conn: psycopg.Connection[Any]) -> None:
    hunks = {"a.py": [[i, 1, i, 1] for i in range(1, 10_002)]}
    _refused(ledger_conn,
             "INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES ('s', 'abcd', '{a.py}', %s)",
             (json.dumps(hunks),), "LD004", "merge.hunks['a.py']", "10001 hunks", "at most 10000")


def test_hunks_are_bounded_per_merge(ledger_conn: psycopg.Connection[Any]) -> None:
    paths = [f"f{n}.py" for n in range(11)]
    hunks = {p: [[i, 1, i, 1] for i in range(1, 10_000)] for p in paths}
    _refused(ledger_conn, "INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES ('s', 'abcd', %s, %s)",
             (paths, json.dumps(hunks)), "LD004", "merge.hunks", "109989 hunks", "at most 100000 per merge")


def test_a_directory_as_a_hunks_key_is_named_as_a_directory(ledger_conn: psycopg.Connection[Any]) -> None:
    _refused(ledger_conn, "INSERT INTO ledger.merge (scope, commit_sha, paths, hunks) VALUES ('s', 'abcd', %s, %s)",
             (["src/", "src/a.py"], json.dumps({"src/": [[1, 1, 1, 1]]})), "LD003", "'src/' is a directory")


def test_two_anchors_keys_naming_one_path_are_refused(ledger_conn: psycopg.Connection[Any]) -> None:
    anchors = json.dumps({"src/a.py": [1, 2], "./src//a.py": [30, 40]})
    _refused(ledger_conn,
             "INSERT INTO ledger.finding (scope, title, paths, anchors) VALUES ('s', 't', '{src/a.py}', %s)",
             (anchors,), "LD003", "finding.anchors", "two keys name one path")


def test_a_line_number_with_leading_zeros_is_read(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = fl.add_finding(ledger_conn, "s", "t", paths=["src/a.py:00000000001", "src/b.py:0000000000000000000000042"]).id
    row = ledger_conn.execute("SELECT paths, anchors FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert row == (["src/a.py", "src/b.py"], {"src/a.py": [1, 1], "src/b.py": [42, 42]})
    with pytest.raises(LedgerError) as info:
        fl.add_finding(ledger_conn, "s", "t", paths=["src/a.py:000099999999999"])
    assert info.value.sqlstate == "LD003" and "out of range" in str(info.value)


def test_a_line_suffix_before_a_no_break_space_is_kept(ledger_conn: psycopg.Connection[Any]) -> None:
    fid = fl.add_finding(ledger_conn, "s", "t", paths=["src/a.py:12\u00a0", "\u3000src/b.py:3-4 "]).id
    row = ledger_conn.execute("SELECT paths, anchors FROM ledger.finding WHERE id = %s", (fid,)).fetchone()
    assert row == (["src/a.py", "src/b.py"], {"src/a.py": [12, 12], "src/b.py": [3, 4]})


def test_a_forged_notify_with_an_id_beyond_bigint_is_skipped(
    ledger_dsn: str, ledger_conn: psycopg.Connection[Any], caplog: pytest.LogCaptureFixture
) -> None:
    ledger_conn.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'h5_nobody') "
                        "THEN CREATE ROLE h5_nobody NOLOGIN; END IF; "
                        "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$")
    with connect_as(ledger_dsn) as listener, connect_as(ledger_dsn, "h5_nobody") as forger:
        fl.listen_findings(listener)
        events = fl.finding_events(listener, timeout=0.5)
        forger.execute("NOTIFY ledger_finding, '9999999999999999999'")
        forger.execute("NOTIFY ledger_finding, '0'")
        with caplog.at_level(logging.WARNING, logger="findings_ledger"):
            got = list(events)
    assert got == []
    skipped = [r.getMessage() for r in caplog.records if "skipped a notification" in r.getMessage()]
    assert any("9999999999999999999" in m for m in skipped), skipped


def test_evaluate_refuses_a_dsn_with_replication_role_replica(ledger_dsn: str) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    handmade = Path(__file__).resolve().parents[1] / "corpus"
    dsn = ledger_dsn + " options='-c session_replication_role=replica'"
    proc = subprocess.run([sys.executable, "-m", "findings_ledger.cli", "evaluate", str(handmade), "--check"],
                          capture_output=True, text=True, env={**os.environ, "LEDGER_DSN": dsn}, timeout=300)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "session_replication_role is 'replica'" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert "recall" not in proc.stdout
