"""The path to distributing the ledger by scope (docs/scaling.md): what the plan would change,
computed from the catalog of a migrated database, is the list docs/scaling.md shows.

``docs/examples/scaling_readiness.sql`` reads the catalog (pg_constraint, pg_index, pg_trigger,
information_schema.columns) and lists, in the order a DBA works: the distributed tables without a
``scope`` column, the primary keys, unique constraints and unique indexes without ``scope``, the
foreign keys between distributed tables that do not pair ``scope`` with ``scope``, the
statement-level triggers of distributed tables (those with transition tables must be rewritten),
and the identity columns of distributed tables. These tests check that

* the list docs/scaling.md shows is the list the migrated database gives (a schema change that
  adds a key, a table or a trigger fails here until the doc shows it: rerun the psql command the
  failure prints and paste its output);
* the query agrees with a second reading of the catalog written here in Python;
* the list follows the schema: a distributed table without ``scope`` comes on (every table carries
  it today), a new table without it too;
* agent_task and injection carry the scope of their issue and finding, set by their triggers.
"""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest
from support.migrations import ROOT

QUERY = ROOT / "docs" / "examples" / "scaling_readiness.sql"
DOC = ROOT / "docs" / "scaling.md"
MARKER = "<!-- output-of: docs/examples/scaling_readiness.sql -->"
#: the plan's placement of the tables that are not distributed (docs/scaling.md, "Placement")
NOT_DISTRIBUTED = {"poisoned_failure_reason": "reference", "retired_session": "reference",
                   "alembic_version": "coordinator"}

Row = tuple[str, str, str, str]


def plan_rows(conn: psycopg.Connection[Any]) -> list[Row]:
    return [tuple(r) for r in conn.execute(QUERY.read_text(encoding="utf-8")).fetchall()]  # type: ignore[misc]


def doc_rows() -> list[Row]:
    """The rows of the psql table docs/scaling.md shows after its output-of marker."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i in range(lines.index(MARKER) + 1, len(lines)) if lines[i].strip())
    assert lines[start].startswith("```"), "the marker must be followed by a fenced block"
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    body = lines[start + 1:end]
    rows = [tuple(cell.strip() for cell in line.split("|")) for line in body[2:]
            if "|" in line]
    footer = [line for line in body if re.fullmatch(r"\(\d+ rows?\)", line.strip())]
    assert footer == [f"({len(rows)} rows)"], footer
    return rows  # type: ignore[return-value]


def test_docs_scaling_shows_the_list_the_catalog_gives(ledger_conn: psycopg.Connection[Any]) -> None:
    rows = plan_rows(ledger_conn)
    print("\nwhat distributing by scope would change (docs/examples/scaling_readiness.sql):")
    for row in rows:
        print("  " + " | ".join(row))
    shown = doc_rows()
    assert shown == rows, (
        "docs/scaling.md does not show what the plan would change on this schema: run\n"
        "  psql -X -v ON_ERROR_STOP=1 -d \"$LEDGER_DSN\" -f docs/examples/scaling_readiness.sql\n"
        "on a database migrated to head and paste its output under the marker "
        f"(and update the prose). Missing from the doc: {sorted(set(rows) - set(shown))}; "
        f"no longer true: {sorted(set(shown) - set(rows))}"
    )


def catalog_reading(conn: psycopg.Connection[Any]) -> dict[str, set[str]]:
    """The objects of steps 1 to 4, read from the catalog without the query's SQL."""
    tables = {r[0] for r in conn.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = 'ledger'::regnamespace AND relkind IN ('r', 'p')")}
    dist = tables - set(NOT_DISTRIBUTED)
    scoped = {r[0] for r in conn.execute(
        "SELECT table_name FROM information_schema.columns WHERE table_schema = 'ledger' AND column_name = 'scope'")}
    cons = conn.execute(
        "SELECT c.conrelid::regclass::text, c.conname, c.contype, c.confrelid::regclass::text,"
        "       ARRAY(SELECT attname::text FROM pg_attribute a, unnest(c.conkey) k WHERE a.attrelid = c.conrelid"
        "             AND a.attnum = k),"
        "       ARRAY(SELECT attname::text FROM pg_attribute a, unnest(c.confkey) k WHERE a.attrelid = c.confrelid"
        "             AND a.attnum = k)"
        "  FROM pg_constraint c WHERE c.connamespace = 'ledger'::regnamespace AND c.contype IN ('p', 'u', 'x', 'f')"
    ).fetchall()
    keys, fks = set(), set()
    for rel, name, kind, ref, cols, ref_cols in cons:
        table = rel.removeprefix("ledger.")
        if table not in dist:
            continue
        if kind != "f" and "scope" not in cols:
            keys.add(f"{rel} {name}")
        if kind == "f" and ref.removeprefix("ledger.") in dist:
            positions = [i for i, c in enumerate(cols) if c == "scope"]
            if not any(ref_cols[i] == "scope" for i in positions):
                fks.add(f"{rel} {name}")
    for rel, name in conn.execute(
            "SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text FROM pg_index i"
            " WHERE i.indisunique"
            "   AND i.indrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'ledger'::regnamespace)"
            "   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)"
            "   AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attname = 'scope'"
            "                   AND a.attnum = ANY (i.indkey))"):
        if rel.removeprefix("ledger.") in dist:
            keys.add(f"{rel} {name.removeprefix('ledger.')}")
    triggers = {f"ledger.{r[0]} {r[1]}" for r in conn.execute(
        "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " WHERE c.relnamespace = 'ledger'::regnamespace AND NOT t.tgisinternal AND t.tgtype & 1 = 0"
    ) if r[0] in dist}
    return {"1 add scope": {f"ledger.{t}" for t in dist - scoped}, "2 key": keys, "3 foreign key": fks,
            "4 trigger": triggers}


def by_step(rows: list[Row]) -> dict[str, set[str]]:
    steps: dict[str, set[str]] = {"1 add scope": set(), "2 key": set(), "3 foreign key": set(), "4 trigger": set()}
    for step, obj, _now, _change in rows:
        if step in steps:
            steps[step].add(obj)
    return steps


def test_the_query_agrees_with_a_second_reading_of_the_catalog(ledger_conn: psycopg.Connection[Any]) -> None:
    rows = plan_rows(ledger_conn)
    assert by_step(rows) == catalog_reading(ledger_conn)
    # the statement-level triggers with transition tables are the ones to rewrite
    transition = {f"ledger.{r[0]} {r[1]}" for r in ledger_conn.execute(
        "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " WHERE c.relnamespace = 'ledger'::regnamespace AND (t.tgoldtable IS NOT NULL OR t.tgnewtable IS NOT NULL)")}
    assert {obj for step, obj, _n, change in rows if change.startswith("rewrite:")} == transition != set()


def test_the_list_follows_the_schema(ledger_conn: psycopg.Connection[Any]) -> None:
    before = by_step(plan_rows(ledger_conn))
    assert before["1 add scope"] == set()  # every distributed table carries scope, agent_task and injection too
    with ledger_conn.transaction(force_rollback=True):  # the database is left as it was
        ledger_conn.execute("ALTER TABLE ledger.injection DROP COLUMN scope")
        ledger_conn.execute("CREATE TABLE ledger.readiness_probe (id bigint PRIMARY KEY, note text UNIQUE)")
        ledger_conn.execute("CREATE UNIQUE INDEX readiness_probe_note_idx ON ledger.readiness_probe (lower(note))")
        rows = plan_rows(ledger_conn)
        after = by_step(rows)
        assert after["1 add scope"] == {"ledger.injection", "ledger.readiness_probe"}
        assert ("1 add scope", "ledger.injection", "no scope column",
                "add scope text NOT NULL, filled from ledger.finding through injection_finding_id_fkey") in rows
        assert after["2 key"] - before["2 key"] == {
            "ledger.readiness_probe readiness_probe_pkey", "ledger.readiness_probe readiness_probe_note_key",
            "ledger.readiness_probe readiness_probe_note_idx"}
        assert after == catalog_reading(ledger_conn)
    assert by_step(plan_rows(ledger_conn)) == before


def test_agent_task_and_injection_carry_their_parents_scope(ledger_conn: psycopg.Connection[Any]) -> None:
    """The scope the plan distributes agent_task and injection by is the issue's and the finding's:
    set by the _100_prepare triggers when a writer does not send it, refused (LD003) when another."""
    with ledger_conn.transaction(force_rollback=True):
        issue = ledger_conn.execute(
            "INSERT INTO ledger.issue (scope, title) VALUES ('readiness-a', 'probe') RETURNING id").fetchone()[0]
        ledger_conn.execute("INSERT INTO ledger.scope (scope) VALUES ('readiness-b')")
        task = ledger_conn.execute(
            "INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (%s, 'a', 'r') RETURNING scope",
            (issue,)).fetchone()
        assert task == ("readiness-a",)
        finding = ledger_conn.execute(
            "SELECT id FROM ledger.add_finding(p_scope => 'readiness-a', p_title => 'probe finding')").fetchone()[0]
        ledger_conn.execute("SELECT ledger.record_injection('probe-session', ARRAY[%s]::bigint[])", (finding,))
        assert ledger_conn.execute("SELECT scope FROM ledger.injection WHERE session_id = 'probe-session'"
                                   ).fetchall() == [("readiness-a",)]
        for sql, args, message in [
            ("INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id, scope)"
             " VALUES (%s, 'a', 'r', 'readiness-b')",
             (issue,), f"invalid agent_task.scope: 'readiness-b' (issue {issue} is in scope 'readiness-a')"),
            ("INSERT INTO ledger.injection (session_id, finding_id, scope) VALUES ('other', %s, 'readiness-b')",
             (finding,), f"invalid injection.scope: 'readiness-b' (finding {finding} is in scope 'readiness-a')"),
        ]:
            with pytest.raises(psycopg.Error) as caught, ledger_conn.transaction():
                ledger_conn.execute(sql, args)
            assert (caught.value.sqlstate, caught.value.diag.message_primary) == ("LD003", message)
