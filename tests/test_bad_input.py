"""Bad input gets a project SQLSTATE naming the field, and nothing is
half-written: row counts of every ledger table are the same before and after
a rejected statement (single, multi-row or COPY)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import findings_ledger as fl

SHA = "ab" * 20
TABLES = ("scope", "finding", "merge", "supersession")


def counts(conn: psycopg.Connection) -> dict[str, int]:
    out = {}
    for table in TABLES:
        row = conn.execute(f"SELECT count(*) FROM ledger.{table}").fetchone()
        assert row is not None
        out[table] = row[0]
    return out


def active_state(conn: psycopg.Connection) -> list[tuple[Any, ...]]:
    return conn.execute("SELECT id, superseded_at, superseded_by FROM ledger.finding ORDER BY id").fetchall()


@pytest.fixture
def seeded(ledger_conn: psycopg.Connection) -> psycopg.Connection:
    """A scope with one active drift finding on a.py, so a bad merge that
    touches a.py would show any half-done supersession."""
    fl.add_finding(ledger_conn, "spec", "a.py is stale", paths=["a.py"], kind="drift")
    return ledger_conn


FINDING_CASES = [
    # (column values, sqlstate, field named in the message)
    ({"scope": None}, "LD002", "finding.scope"),
    ({"scope": "   "}, "LD002", "finding.scope"),
    ({"scope": "s" * 201}, "LD004", "finding.scope"),
    ({"scope": "sp\tec"}, "LD003", "finding.scope"),
    ({"title": None}, "LD002", "finding.title"),
    ({"title": " \n "}, "LD002", "finding.title"),
    ({"title": "t" * 1001}, "LD004", "finding.title"),
    ({"title": "two\nlines"}, "LD003", "finding.title"),
    ({"severity": "urgent"}, "LD003", "finding.severity"),
    ({"kind": "k" * 101}, "LD004", "finding.kind"),
    ({"kind": "  "}, "LD002", "finding.kind"),
    ({"finding_key": ""}, "LD003", "finding.finding_key"),
    ({"source": "x" * 201}, "LD004", "finding.source"),
    ({"description": "d" * 1_000_001}, "LD004", "finding.description"),
    ({"paths": ["a.py"] * 1001}, "LD004", "finding.paths"),
    ({"paths": ["ok.py", "/abs.py"]}, "LD001", "finding.paths[2]"),
]


@pytest.mark.parametrize(("values", "sqlstate", "field"), FINDING_CASES)
def test_bad_finding_is_rejected_and_nothing_is_written(
    seeded: psycopg.Connection, values: dict[str, Any], sqlstate: str, field: str
) -> None:
    row = {
        "scope": "new-scope",
        "title": "t",
        "kind": "drift",
        "severity": "low",
        "finding_key": None,
        "source": None,
        "description": None,
        "paths": ["b.py"],
        **values,
    }
    before = counts(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(
            "INSERT INTO ledger.finding (scope, title, kind, severity, finding_key, source, description, paths) "
            "VALUES (%(scope)s, %(title)s, %(kind)s, %(severity)s, %(finding_key)s, %(source)s, %(description)s, "
            "%(paths)s)",
            row,
        )
    assert info.value.sqlstate == sqlstate
    assert field in info.value.diag.message_primary
    assert counts(seeded) == before


MERGE_CASES = [
    ({"scope": None}, "LD002", "merge.scope"),
    ({"commit_sha": None}, "LD002", "merge.commit_sha"),
    ({"commit_sha": "not-a-sha"}, "LD003", "merge.commit_sha"),
    ({"commit_sha": "abc"}, "LD003", "merge.commit_sha"),
    ({"commit_sha": "a" * 65}, "LD004", "merge.commit_sha"),
    ({"node_id": "n" * 201}, "LD004", "merge.node_id"),
    ({"message": "m" * 262_145}, "LD004", "merge.message"),
    ({"paths": ["a.py", "../etc/passwd"]}, "LD001", "merge.paths[2]"),
    ({"paths": ["a.py", "C:\\repo\\a.py"]}, "LD001", "merge.paths[2]"),
]


@pytest.mark.parametrize(("values", "sqlstate", "field"), MERGE_CASES)
def test_bad_merge_is_rejected_and_supersedes_nothing(
    seeded: psycopg.Connection, values: dict[str, Any], sqlstate: str, field: str
) -> None:
    row = {"scope": "spec", "commit_sha": SHA, "node_id": None, "message": "", "paths": ["a.py"], **values}
    before, state = counts(seeded), active_state(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths) "
            "VALUES (%(scope)s, %(commit_sha)s, %(node_id)s, %(message)s, %(paths)s)",
            row,
        )
    assert info.value.sqlstate == sqlstate
    assert field in info.value.diag.message_primary
    assert counts(seeded) == before
    assert active_state(seeded) == state


def test_bad_hygiene_mode_is_ld003(ledger_conn: psycopg.Connection) -> None:
    with pytest.raises(fl.ValueInvalid) as info:
        fl.set_hygiene_mode(ledger_conn, "spec", "sometimes")
    assert info.value.sqlstate == "LD003"
    assert "hygiene_mode" in str(info.value)
    assert counts(ledger_conn)["scope"] == 0


def test_duplicate_finding_key_is_a_typed_error(ledger_conn: psycopg.Connection) -> None:
    fl.add_finding(ledger_conn, "spec", "t", finding_key="drift-1", kind="drift")
    with pytest.raises(fl.FindingAlreadyReported) as info:
        fl.add_finding(ledger_conn, "spec", "t again", finding_key=" drift-1 ", kind="drift")
    # LD301 (a subclass of DuplicateFindingKey): re-report with report_finding
    assert info.value.sqlstate == "LD301"
    assert isinstance(info.value, fl.DuplicateFindingKey)
    assert "report_finding" in (info.value.hint or "")
    # the same key in another scope is fine
    fl.add_finding(ledger_conn, "other", "t", finding_key="drift-1", kind="drift")
    assert counts(ledger_conn)["finding"] == 2


def test_one_bad_row_in_a_multirow_merge_insert_writes_nothing(seeded: psycopg.Connection) -> None:
    before, state = counts(seeded), active_state(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES "
            "('spec', %s, '{a.py}'), ('new-scope', %s, '{b.py}'), ('spec', %s, '{/abs}') "
            "ON CONFLICT DO NOTHING",
            ("1" * 40, "2" * 40, "3" * 40),
        )
    assert info.value.sqlstate == "LD001"
    assert counts(seeded) == before  # no merge, no audit row, no 'new-scope'
    assert active_state(seeded) == state  # a.py's finding is still active


def test_one_bad_row_in_a_copy_writes_nothing(seeded: psycopg.Connection) -> None:
    before, state = counts(seeded), active_state(seeded)
    with pytest.raises(psycopg.Error) as info, seeded.cursor() as cur:
        with cur.copy("COPY ledger.merge (scope, commit_sha, paths) FROM STDIN") as copy:
            copy.write_row(("spec", "1" * 40, ["a.py"]))
            copy.write_row(("new-scope", "2" * 40, ["b.py"]))
            copy.write_row(("spec", "zz", ["c.py"]))
    assert info.value.sqlstate == "LD003"
    assert counts(seeded) == before
    assert active_state(seeded) == state


def test_one_bad_row_in_a_multirow_finding_insert_writes_nothing(seeded: psycopg.Connection) -> None:
    before = counts(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(
            "INSERT INTO ledger.finding (scope, title, paths) VALUES "
            "('scope-x', 'fine', '{x.py}'), ('scope-y', NULL, '{y.py}')"
        )
    assert info.value.sqlstate == "LD002"
    assert counts(seeded) == before


def test_python_api_maps_each_code_to_its_class(ledger_conn: psycopg.Connection) -> None:
    cases: list[tuple[type[fl.LedgerError], str, Any]] = [
        (fl.PathRejected, "LD001", lambda: fl.record_merge(ledger_conn, "spec", SHA, ["../x"])),
        (fl.ValueRequired, "LD002", lambda: fl.add_finding(ledger_conn, "spec", "  ")),
        (fl.ValueInvalid, "LD003", lambda: fl.record_merge(ledger_conn, "spec", "xyz!")),
        (fl.ValueTooLong, "LD004", lambda: fl.add_finding(ledger_conn, "spec", "t" * 1001)),
        (fl.NotFound, "LD005", lambda: fl.active_findings(ledger_conn, "spec")),
    ]
    for cls, state, call in cases:
        with pytest.raises(cls) as info:
            call()
        assert info.value.sqlstate == state
        assert isinstance(info.value.__cause__, psycopg.Error)
        assert info.value.__cause__.sqlstate == state
    assert counts(ledger_conn) == {t: 0 for t in TABLES}


def test_a_failed_call_inside_the_callers_transaction_rolls_back_with_it(ledger_dsn: str) -> None:
    with psycopg.connect(ledger_dsn) as conn:
        fl.add_finding(conn, "spec", "t", paths=["a.py"], kind="drift")
        with pytest.raises(fl.PathRejected):
            fl.record_merge(conn, "spec", SHA, ["a.py", "/abs"])
        conn.rollback()
        assert counts(conn) == {t: 0 for t in TABLES}
