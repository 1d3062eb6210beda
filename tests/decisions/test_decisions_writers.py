"""Every case of tests/decisions/test_decisions.py written five ways, each into a fresh
database cloned from the same template: single plain INSERTs, one multi-row
INSERT per table, COPY, the Python API (add_finding, record_merge), and the
batch API (record_merges, one call per scope). Causality, change kinds,
anchors and their moves are decided in the database, so all five end with
the same rows (anchors included) and the same audit, ids and all."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from test_decisions import CASES, day

import findings_ledger as fl

FINDINGS = [(f"decide:{c.id}", f"{c.id} {label}", spec) for c in CASES for label, spec in c.findings.items()]
MERGES = [(f"decide:{c.id}", f"{n + 1:04x}cafe", m) for c in CASES for n, m in enumerate(c.merges)]
F_COLUMNS = "scope, title, finding_key, kind, paths, expects, observed_at"
M_COLUMNS = "scope, commit_sha, paths, message, merged_at, added, deleted, hunks"


def f_row(scope: str, title: str, spec: dict[str, Any]) -> tuple[Any, ...]:
    return (scope, title, spec["key"], spec["kind"], spec["paths"], spec["expects"], day(spec["observed"]))


def m_row(scope: str, sha: str, m: Any) -> tuple[Any, ...]:
    return (scope, sha, list(m.paths), m.message, day(m.at), None if m.added is None else list(m.added),
            None if m.deleted is None else list(m.deleted), None if m.hunks is None else Jsonb(m.hunks))


def policies(conn: psycopg.Connection[Any]) -> None:
    for c in CASES:
        if c.policy:
            fl.set_match_policy(conn, f"decide:{c.id}", **c.policy)
        fl.set_hygiene_mode(conn, f"decide:{c.id}", c.mode)


def write_single(conn: psycopg.Connection[Any]) -> None:
    for row in FINDINGS:
        conn.execute(f"INSERT INTO ledger.finding ({F_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)", f_row(*row))
    policies(conn)
    for row in MERGES:
        conn.execute(f"INSERT INTO ledger.merge ({M_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                     "ON CONFLICT (scope, commit_sha) DO NOTHING", m_row(*row))


def write_multirow(conn: psycopg.Connection[Any]) -> None:
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(FINDINGS))
    conn.execute(f"INSERT INTO ledger.finding ({F_COLUMNS}) VALUES " + values,
                 [v for row in FINDINGS for v in f_row(*row)])
    policies(conn)
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s)"] * len(MERGES))
    conn.execute(f"INSERT INTO ledger.merge ({M_COLUMNS}) VALUES " + values + " ON CONFLICT (scope, commit_sha) "
                 "DO NOTHING", [v for row in MERGES for v in m_row(*row)])


def write_copy(conn: psycopg.Connection[Any]) -> None:
    with conn.cursor() as cur:
        with cur.copy(f"COPY ledger.finding ({F_COLUMNS}) FROM STDIN") as copy:
            for row in FINDINGS:
                copy.write_row(f_row(*row))
        policies(conn)
        with cur.copy(f"COPY ledger.merge ({M_COLUMNS}) FROM STDIN") as copy:
            for row in MERGES:
                r = m_row(*row)
                copy.write_row((*r[:7], None if r[7] is None else json.dumps(r[7].obj)))


def write_api(conn: psycopg.Connection[Any]) -> None:
    for scope, title, spec in FINDINGS:
        fl.add_finding(conn, scope, title, paths=spec["paths"], kind=spec["kind"], finding_key=spec["key"],
                       expects=spec["expects"], observed_at=day(spec["observed"]))
    policies(conn)
    for scope, sha, m in MERGES:
        fl.record_merge(conn, scope, sha, m.paths, message=m.message, merged_at=day(m.at), added=m.added,
                        deleted=m.deleted, hunks=m.hunks)


def write_batches(conn: psycopg.Connection[Any]) -> None:
    for scope, title, spec in FINDINGS:
        fl.add_finding(conn, scope, title, paths=spec["paths"], kind=spec["kind"], finding_key=spec["key"],
                       expects=spec["expects"], observed_at=day(spec["observed"]))
    policies(conn)
    for c in CASES:  # MERGES is case by case, each case one scope
        scope = f"decide:{c.id}"
        fl.record_merges(conn, scope, [
            {"commit_sha": sha, "paths": m.paths, "message": m.message, "merged_at": day(m.at), "added": m.added,
             "deleted": m.deleted, "hunks": m.hunks} for s, sha, m in MERGES if s == scope])


def end_state(dsn: str) -> dict[str, list[tuple[Any, ...]]]:
    with psycopg.connect(dsn) as conn:
        return {
            "finding": conn.execute(
                "SELECT id, scope, finding_key, kind, paths, expects, anchors, observed_at, "
                "superseded_at IS NOT NULL, superseded_by, superseded_by_merge_id, supersede_rule "
                "FROM ledger.finding ORDER BY id").fetchall(),
            "merge": conn.execute(
                "SELECT id, scope, commit_sha, paths, added, deleted, hunks, processed FROM ledger.merge ORDER BY id"
            ).fetchall(),
            "audit": conn.execute(
                "SELECT id, scope, finding_id, merge_id, action, rule, evidence, detail, reason "
                "FROM ledger.supersession ORDER BY id").fetchall(),
        }


def test_plain_multirow_copy_api_and_batch_writes_decide_alike(ledger_dsn_factory: Callable[[], str]) -> None:
    states = []
    for write in (write_single, write_multirow, write_copy, write_api, write_batches):
        dsn = ledger_dsn_factory()
        with psycopg.connect(dsn, autocommit=True) as conn:
            write(conn)
        states.append(end_state(dsn))
    single, multirow, copy, api, batches = states
    assert multirow == single
    assert copy == single
    assert api == single
    assert batches == single
    actions = {row[4] for row in single["audit"]}
    # the drift findings here keep the shipped touch mode flag: a touch of an anchored
    # file away from its lines flags them (anchor_moved remains for the review kind)
    assert {"superseded", "not_before_observed", "anchor_moved", "flagged", "candidate"} <= actions
    assert any(row[6] for row in single["finding"]), "anchors were kept"
