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


DECISION_CASES = [
    # (table, column values over a valid row, sqlstate, field named in the message): the decision columns
    ("finding", {"expects": "gone"}, "LD003", "finding.expects"),
    ("finding", {"expects": " "}, "LD002", "finding.expects"),
    ("finding", {"paths": ["a.py:48-40"]}, "LD003", "finding.paths[1]"),
    ("finding", {"paths": ["b.py", "a.py:99999999999"]}, "LD003", "finding.paths[2]"),
    ("finding", {"paths": ["../a.py:4"]}, "LD001", "finding.paths[1]"),
    ("finding", {"anchors": '{"b.py": [1, 2]}'}, "LD003", "finding.anchors['b.py']"),
    ("finding", {"anchors": '{"a.py": [3, 2]}'}, "LD003", "finding.anchors['a.py']"),
    ("finding", {"anchors": '{"a.py": [0, 2]}'}, "LD003", "finding.anchors['a.py']"),
    ("finding", {"anchors": '{"a.py": [1.5, 2]}'}, "LD003", "finding.anchors['a.py']"),
    ("finding", {"anchors": '{"a.py": 7}'}, "LD003", "finding.anchors['a.py']"),
    ("finding", {"anchors": "[1, 2]"}, "LD003", "finding.anchors"),
    ("finding", {"task_group": "g\n1"}, "LD003", "finding.task_group"),
    ("finding", {"task_group": "g" * 201}, "LD004", "finding.task_group"),
    ("merge", {"added": ["b.py"]}, "LD003", "merge.added[1]"),
    ("merge", {"deleted": ["a.py", "c/"]}, "LD003", "merge.deleted[2]"),
    ("merge", {"added": ["/abs"]}, "LD001", "merge.added[1]"),
    ("merge", {"hunks": "[]"}, "LD003", "merge.hunks"),
    ("merge", {"hunks": '{"a.py": {"x": 1}}'}, "LD003", "merge.hunks['a.py']"),
    ("merge", {"hunks": '{"a.py": [[1, 2, 3]]}'}, "LD003", "merge.hunks['a.py'][1]"),
    ("merge", {"hunks": '{"a.py": [[1, 1, 1, 1], [1, -2, 3, 4]]}'}, "LD003", "merge.hunks['a.py'][2]"),
    ("merge", {"hunks": '{"a.py": [[1.5, 2, 3, 4]]}'}, "LD003", "merge.hunks['a.py'][1]"),
    ("merge", {"hunks": '{"a.py": [[1, 1, 1, 3000000000]]}'}, "LD003", "merge.hunks['a.py'][1]"),
    ("merge", {"hunks": '{"a.py": [["1", 1, 1, 1]]}'}, "LD003", "merge.hunks['a.py'][1]"),
    ("merge", {"hunks": '{"b.py": [[1, 1, 1, 1]]}'}, "LD003", "merge.hunks['b.py']"),
    ("merge", {"hunks": '{"../a.py": []}'}, "LD001", "merge.hunks"),
    ("merge", {"hunks": '{"./a.py": [], "a.py": []}'}, "LD003", "merge.hunks"),
    ("scope", {"line_context": -1}, "LD003", "scope.line_context"),
    ("scope", {"line_context": 1001}, "LD003", "scope.line_context"),
    ("scope", {"line_context": None}, "LD002", "scope.line_context"),
]
VALID = {
    "finding": {"scope": "spec", "title": "t", "kind": "drift", "paths": ["a.py"]},
    "merge": {"scope": "spec", "commit_sha": SHA, "paths": ["a.py"]},
    "scope": {"scope": "new-scope"},
}


@pytest.mark.parametrize(("table", "values", "sqlstate", "field"), DECISION_CASES)
def test_bad_change_kinds_anchors_and_policy_are_rejected_and_nothing_is_written(
    seeded: psycopg.Connection, table: str, values: dict[str, Any], sqlstate: str, field: str
) -> None:
    row = {**VALID[table], **values}
    before, state = counts(seeded), active_state(seeded)
    with pytest.raises(psycopg.Error) as info:
        seeded.execute(f"INSERT INTO ledger.{table} ({', '.join(row)}) VALUES "  # noqa: S608 (fixed names)
                       f"({', '.join(f'%({c})s' for c in row)})", row)
    assert info.value.sqlstate == sqlstate, info.value.diag.message_primary
    assert field in info.value.diag.message_primary
    assert counts(seeded) == before  # no finding, no merge, no audit row, no scope
    assert active_state(seeded) == state


def test_policy_verbs_refuse_an_unknown_scope_unless_asked_to_create_it(ledger_conn: psycopg.Connection) -> None:
    for call in (lambda **kw: fl.set_hygiene_mode(ledger_conn, "spce", "dry", **kw),
                 lambda **kw: fl.set_match_policy(ledger_conn, "spce", line_context=2, **kw)):
        with pytest.raises(fl.NotFound) as info:
            call()
        assert info.value.sqlstate == "LD005" and "spce" in str(info.value)
        assert counts(ledger_conn)["scope"] == 0  # refusing undid the row
    assert fl.set_hygiene_mode(ledger_conn, "spce", "dry", create=True) == "dry"
    assert fl.set_match_policy(ledger_conn, "spce", line_context=2).line_context == 2
    with pytest.raises(fl.ValueInvalid):  # the value is checked first, for a known scope or not
        fl.set_hygiene_mode(ledger_conn, "other", "sometimes")
