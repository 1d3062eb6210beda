"""tests/schema/head.sql is the committed, normalised ``pg_dump --schema-only``
of a database migrated to head: a change to the schema that does not update
it fails here, so every schema change shows up in review."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from findings_ledger.schema_dump import diff, snapshot, with_header

SNAPSHOT = Path(__file__).resolve().parent / "schema" / "head.sql"


_VIEW_BLOCK = re.compile(r"^-- VIEW .*?(?=^-- |\Z)", re.M | re.S)
_SOLE_FROM = re.compile(r"^\s+FROM [\w.]+ (\w+)$", re.M)


def unqualified_views(text: str) -> str:
    """Views over one table without their columns' table alias: PostgreSQL 16
    and newer print ``SELECT id ... FROM ledger.finding f`` where 13-15 print
    ``SELECT f.id ...`` for the same view (tests/schema/head.sql is made on 15)."""

    def strip(block: re.Match[str]) -> str:
        froms = _SOLE_FROM.findall(block[0])
        if len(froms) != 1 or re.search(r"\bJOIN\b|^\s+FROM .*,", block[0], re.M):
            return block[0]
        return re.sub(rf"\b{froms[0]}\.(?=\w)", "", block[0])

    return _VIEW_BLOCK.sub(strip, text)


def test_migrated_schema_matches_the_committed_snapshot(ledger_dsn: str) -> None:
    actual = with_header(snapshot(ledger_dsn))
    with psycopg.connect(ledger_dsn) as conn:
        server = conn.execute("SHOW server_version").fetchone()
    delta = diff(unqualified_views(SNAPSHOT.read_text()), unqualified_views(actual),
                 "tests/schema/head.sql (committed)", "migrated head (this database)")
    assert not delta, (
        "The migrated schema differs from the committed snapshot tests/schema/head.sql.\n"
        "If the change is intended, run `make schema-snapshot` and commit tests/schema/head.sql "
        f"(the snapshot is made on PostgreSQL 15; this server is {server[0] if server else '?'}).\n" + delta
    )
