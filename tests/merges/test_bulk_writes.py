"""Multi-row INSERT and COPY give exactly the end state and the audit of the
same rows inserted one by one. Each way runs on its own fresh database
cloned from the same template, so even the generated ids must agree."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import psycopg
from support.touch_policy import retire_drift_on_touch

SCOPE = "07_nightshift"
WHEN = datetime(2026, 6, 24, 16, 51, tzinfo=timezone.utc)
OBSERVED = datetime(2026, 6, 24, 9, 0, tzinfo=timezone.utc)  # the drift review, before the merges

# (finding_key, title, paths): raw paths, as reviewers write them
FINDINGS: list[tuple[str, str, list[str]]] = [
    ("F1", "packages/nightshift/ does not exist", ["packages/nightshift/"]),
    ("F2", "nightshift.py still in af", ["./packages/af/af/nightshift.py"]),
    ("F3", "app.py registers night-shift", ["packages/af/af/app.py:88:4"]),
    ("F4", "tests not migrated", ["packages\\af\\tests\\test_nightshift.py"]),
    ("F5", "root pyproject lacks workspace entry", ["pyproject.toml", "uv.lock"]),
    ("F6", "docs mention af night-shift", ["docs/cli.md", "README.md"]),
    ("F7", "behaviour, no file", []),
]

# (commit_sha, node_id, paths): merges 2 and 3 both touch F5's files, merge 4
# repeats merge 1 by an abbreviated sha, from another node, its paths in
# another order (a redelivery inside the batch: ignored), merge 6 touches
# nothing known.
MERGES: list[tuple[str, str, list[str]]] = [
    ("a1" * 20, "07:2", ["packages/af/af/nightshift.py", "packages/af/af/app.py"]),
    ("b2" * 20, "07:3", ["packages/nightshift/pyproject.toml", "pyproject.toml"]),
    ("c3" * 20, "07:4", ["uv.lock", "packages/nightshift/nightshift/cli.py"]),
    ("a1" * 6, "07:2-again", ["packages/af/af/app.py", "packages/af/af/nightshift.py"]),
    ("d4" * 20, "07:5", ["packages/af/tests/test_nightshift.py", "packages/nightshift/tests/test_cli.py"]),
    ("e5" * 20, "07:6", ["CHANGELOG.md"]),
]

INSERT_FINDING = (
    "INSERT INTO ledger.finding (scope, finding_key, kind, title, paths, source, observed_at) "
    "VALUES (%s, %s, 'drift', %s, %s, 'drift-review', %s)"
)
INSERT_MERGE = (
    "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths, merged_at) VALUES (%s, %s, %s, %s, %s) "
    "ON CONFLICT (scope, commit_sha) DO NOTHING"
)


def end_state(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the writes produced, without the wall-clock columns."""
    with psycopg.connect(dsn) as conn:
        return {
            "scope": conn.execute("SELECT scope, hygiene_mode FROM ledger.scope ORDER BY scope").fetchall(),
            "finding": conn.execute(
                "SELECT id, scope, finding_key, kind, severity, title, description, paths, source, "
                "superseded_at IS NOT NULL, superseded_by, superseded_by_merge_id, supersede_rule "
                "FROM ledger.finding ORDER BY id"
            ).fetchall(),
            "merge": conn.execute(
                "SELECT id, scope, commit_sha, node_id, message, paths, merged_at, processed "
                "FROM ledger.merge ORDER BY id"
            ).fetchall(),
            "audit": conn.execute(
                "SELECT id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason "
                "FROM ledger.supersession ORDER BY id"
            ).fetchall(),
        }


def write_single(dsn: str, merges: list[tuple[str, str, list[str]]]) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for key, title, paths in FINDINGS:
            conn.execute(INSERT_FINDING, (SCOPE, key, title, paths, OBSERVED))
        for sha, node, paths in merges:
            conn.execute(INSERT_MERGE, (SCOPE, sha, node, paths, WHEN))


def write_multirow(dsn: str, merges: list[tuple[str, str, list[str]]]) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        values = ", ".join(["(%s, %s, 'drift', %s, %s, 'drift-review', %s)"] * len(FINDINGS))
        conn.execute(
            "INSERT INTO ledger.finding (scope, finding_key, kind, title, paths, source, observed_at) VALUES " + values,
            [v for key, title, paths in FINDINGS for v in (SCOPE, key, title, paths, OBSERVED)],
        )
        values = ", ".join(["(%s, %s, %s, %s, %s)"] * len(merges))
        conn.execute(
            "INSERT INTO ledger.merge (scope, commit_sha, node_id, paths, merged_at) VALUES "
            + values
            + " ON CONFLICT (scope, commit_sha) DO NOTHING",
            [v for sha, node, paths in merges for v in (SCOPE, sha, node, paths, WHEN)],
        )


def write_copy(dsn: str, merges: list[tuple[str, str, list[str]]]) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn, conn.cursor() as cur:
        with cur.copy("COPY ledger.finding (scope, finding_key, kind, title, paths, source, observed_at) "
                      "FROM STDIN") as copy:
            for key, title, paths in FINDINGS:
                copy.write_row((SCOPE, key, "drift", title, paths, "drift-review", OBSERVED))
        with cur.copy("COPY ledger.merge (scope, commit_sha, node_id, paths, merged_at) FROM STDIN") as copy:
            for sha, node, paths in merges:
                copy.write_row((SCOPE, sha, node, paths, WHEN))


def states_of(factory: Callable[[], str], merges: list[tuple[str, str, list[str]]], *ways: Any) -> list[Any]:
    out = []
    for write in ways:
        dsn = factory()
        with psycopg.connect(dsn, autocommit=True) as conn:
            retire_drift_on_touch(conn, SCOPE)  # the path rule as such on the drift findings
        write(dsn, merges)
        out.append(end_state(dsn))
    return out


def test_copy_and_multirow_insert_equal_single_inserts(ledger_dsn_factory: Callable[[], str]) -> None:
    # COPY has no ON CONFLICT, so this batch leaves the redelivery out
    merges = [m for i, m in enumerate(MERGES) if i != 3]
    single, multirow, copy = states_of(ledger_dsn_factory, merges, write_single, write_multirow, write_copy)
    assert multirow == single
    assert copy == single
    assert len(single["merge"]) == 5
    assert len(single["audit"]) == 5


def test_multirow_insert_with_a_redelivery_equals_single_inserts(ledger_dsn_factory: Callable[[], str]) -> None:
    single, multirow = states_of(ledger_dsn_factory, MERGES, write_single, write_multirow)
    assert multirow == single

    # and the shared result is the intended one
    by_key = {row[2]: row for row in single["finding"]}
    assert by_key["F2"][7] == ["packages/af/af/nightshift.py"]
    assert by_key["F3"][7] == ["packages/af/af/app.py"]
    assert by_key["F4"][7] == ["packages/af/tests/test_nightshift.py"]
    superseded = {key: (row[9], row[10]) for key, row in by_key.items()}
    assert superseded == {
        "F1": (True, "07:3"),
        "F2": (True, "07:2"),
        "F3": (True, "07:2"),
        "F4": (True, "07:5"),
        "F5": (True, "07:3"),  # merge 07:4 also touches uv.lock, but F5 is gone by then
        "F6": (False, None),  # no merge touched docs/cli.md or README.md
        "F7": (False, None),
    }
    assert [(r[4], r[6]) for r in single["audit"]] == [
        ("superseded", "packages/af/af/nightshift.py"),  # audit rows of one merge come in finding id order
        ("superseded", "packages/af/af/app.py"),
        ("superseded", "packages/nightshift/pyproject.toml"),
        ("superseded", "pyproject.toml"),
        ("superseded", "packages/af/tests/test_nightshift.py"),
    ]
    assert len(single["merge"]) == 5
