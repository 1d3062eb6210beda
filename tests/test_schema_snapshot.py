"""tests/schema/head.sql is the committed, normalised ``pg_dump --schema-only``
of a database migrated to head: a change to the schema that does not update
it fails here, so every schema change shows up in review."""

from __future__ import annotations

from pathlib import Path

import psycopg

from findings_ledger.testing.schema_dump import diff, snapshot, with_header

SNAPSHOT = Path(__file__).resolve().parent / "schema" / "head.sql"


def test_migrated_schema_matches_the_committed_snapshot(ledger_dsn: str) -> None:
    actual = with_header(snapshot(ledger_dsn))
    with psycopg.connect(ledger_dsn) as conn:
        server = conn.execute("SHOW server_version").fetchone()
    delta = diff(SNAPSHOT.read_text(), actual, "tests/schema/head.sql (committed)", "migrated head (this database)")
    assert not delta, (
        "The migrated schema differs from the committed snapshot tests/schema/head.sql.\n"
        "If the change is intended, run `make schema-snapshot` and commit tests/schema/head.sql "
        f"(the snapshot is made on PostgreSQL 15; this server is {server[0] if server else '?'}).\n" + delta
    )
