"""A normalised ``pg_dump --schema-only`` of the ``ledger`` schema.

The form the schema is compared in:

* the drift check (``tests/migrations/test_schema_drift.py``) compares this dump of a
  database built by ``psql -f sql/install.sql`` with that of
  ``alembic upgrade head``;
* the offline-SQL tests compare this dump of a database built by
  ``alembic upgrade head --sql | psql`` (and by each revision's
  ``upgrade.sql`` run with ``psql -f``) with that of the online upgrade;
* a DBA checks a live database for drift against a scratch database built
  from ``sql/`` (docs/dba.md)::

      python -m findings_ledger.testing.schema_dump --dsn "$LEDGER_DSN" --check expected.sql

Normalisation: pg_dump's own comments, ``SET`` lines, ``\\restrict`` lines and
version banners are dropped; owners are left out (``--no-owner``) and the
dumping role's name in privileges becomes ``<owner>``, and the lines of an
object's privileges are sorted (an ACL lists its entries in the order the
grants were made, which means nothing: a revision that grants one more role
appends it, ``sql/access/privileges.sql`` grants in its own order); each object
becomes one block headed ``-- <TYPE> <name>``, followed by its ``COMMENT ON``;
blocks are sorted by type, then name, so the order does not depend on OIDs or
on the order the objects were created in. The output is for reading and comparing,
not for running.

"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import click
import psycopg
from psycopg import sql

from . import cluster, pg_binaries

SCHEMA = "ledger"

HEADER = (
    "-- Normalised pg_dump --schema-only of schema ledger migrated to head.\n"
    "-- Written by python -m findings_ledger.testing.schema_dump.\n"
    "-- Review its diff: every change here is a change to the database schema.\n"
)

# pg_dump's own session settings, emitted before (and between) objects.
_PG_DUMP_SET = re.compile(
    r"^(SET (statement_timeout|lock_timeout|idle_in_transaction_session_timeout|transaction_timeout|"
    r"client_encoding|standard_conforming_strings|check_function_bodies|xmloption|client_min_messages|"
    r"row_security|default_tablespace|default_table_access_method|default_toast_compression|"
    r"default_with_oids) = .*;|SELECT pg_catalog\.set_config\('search_path', '', false\);)$"
)
_PG_DUMP_NOISE = re.compile(
    r"^(--|-- PostgreSQL database dump( complete)?|-- Dumped (from database|by pg_dump) version .*|"
    r"\\(un)?restrict .*)$"
)
_ENTRY_HEADER = re.compile(
    r"^--\n-- (?:Data for )?Name: (?P<name>.*?); Type: (?P<type>.*?); Schema: (?P<schema>.*?); Owner: .*\n--\n",
    re.MULTILINE,
)
_TYPE_ORDER = [
    "SCHEMA",
    "EXTENSION",
    "TYPE",
    "DOMAIN",
    "FUNCTION",
    "PROCEDURE",
    "AGGREGATE",
    "TABLE",
    "SEQUENCE",
    "SEQUENCE OWNED BY",
    "VIEW",
    "MATERIALIZED VIEW",
    "DEFAULT",
    "CONSTRAINT",
    "INDEX",
    "TRIGGER",
    "FK CONSTRAINT",
    "ROW SECURITY",
    "POLICY",
    "DEFAULT ACL",
    "ACL",
]


class DumpError(RuntimeError):
    """pg_dump failed or its output could not be parsed."""


@dataclass
class _Entry:
    type: str
    schema: str
    name: str
    body: str

    def key(self) -> tuple[int, str, str]:
        rank = _TYPE_ORDER.index(self.type) if self.type in _TYPE_ORDER else len(_TYPE_ORDER)
        return (rank, self.type, self.name)

    def render(self) -> str:
        where = f"{self.schema}." if self.schema not in ("-", "") else ""
        return f"-- {self.type} {where}{self.name}\n{self.body}\n"


def client_binary(name: str) -> str:
    """Path of a PostgreSQL client program (``pg_dump``, ``psql``): the one
    next to the server binaries the throwaway cluster uses (``PG_BINDIR``,
    else the newest installed), else the one on ``PATH``."""
    try:
        candidate = pg_binaries.resolve().client(name)  # npm servers: the embedded wheel's psql/pg_dump
        if candidate:
            return str(candidate)
    except pg_binaries.BinariesError:
        pass
    found = shutil.which(name)
    if not found:
        raise DumpError(f"{name} not found: install the PostgreSQL client (Debian: postgresql-client) or set PG_BINDIR")
    return found


def raw_dump(dsn: str, schema: str = SCHEMA) -> str:
    """``pg_dump --schema-only`` of ``schema`` in the database at ``dsn``."""
    proc = subprocess.run(
        [client_binary("pg_dump"), "--schema-only", f"--schema={schema}", "--no-owner", "--no-tablespaces",
         "--dbname", dsn],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise DumpError(f"pg_dump failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def normalise(dump: str, owner: str | None = None) -> str:
    """The normalised form of a plain-format ``pg_dump`` (see the module docstring).

    ``owner``: the role that ran the migrations; its name in privileges
    becomes ``<owner>``.
    """
    entries: list[_Entry] = []
    matches = list(_ENTRY_HEADER.finditer(dump))
    leftover = _clean(dump[: matches[0].start()] if matches else dump)
    if leftover:
        raise DumpError(f"unexpected text before the first object of the dump: {leftover[:200]!r}")
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(dump)
        body = _clean(dump[m.end() : end])
        if m["type"] == "ACL":
            if owner:
                body = re.sub(rf'(?<![\w"]){re.escape(owner)}(?![\w"])', "<owner>", body)
            body = "\n".join(sorted(body.splitlines()))
        entry = _Entry(type=m["type"], schema=m["schema"], name=m["name"], body=body)
        if entry.type == "COMMENT" and entries and entries[-1].type != "ACL":
            # pg_dump writes COMMENT ON right after its object: keep them together.
            entries[-1].body += "\n\n" + body
        else:
            entries.append(entry)
    entries.sort(key=_Entry.key)
    return "\n".join(e.render() for e in entries)


def _clean(text: str) -> str:
    lines = [line.rstrip() for line in text.splitlines()]
    kept = [line for line in lines if not _PG_DUMP_SET.match(line) and not _PG_DUMP_NOISE.match(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def snapshot(dsn: str, schema: str = SCHEMA) -> str:
    """The normalised schema dump of the database at ``dsn``."""
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT current_user").fetchone()
    return normalise(raw_dump(dsn, schema), owner=row[0] if row else None)


def head_snapshot(server_dsn: str | None = None, revision: str = "head") -> str:
    """Migrate a new, temporary database on the server to ``revision`` and
    return its normalised dump (the database is dropped afterwards).

    ``server_dsn``: a DSN of any database on the server (default: ``$LEDGER_DSN``,
    else the throwaway cluster); the role needs CREATEDB.
    """
    from ..api import migrate

    server = server_dsn or cluster.server_dsn("postgres")
    name = f"ledger_snapshot_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    ident = sql.Identifier(name)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(ident))
    try:
        target = psycopg.conninfo.make_conninfo(server, dbname=name)
        migrate(target, revision)
        return snapshot(target)
    finally:
        with cluster.catalog_lock(server), psycopg.connect(server, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(ident))


def with_header(body: str) -> str:
    """The committed snapshot file's text for a normalised dump."""
    return HEADER + "\n" + body


def diff(expected: str, actual: str, expected_name: str, actual_name: str) -> str:
    """A unified diff of two snapshots ('' when equal)."""
    return "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True), expected_name, actual_name
        )
    )


@click.command()
@click.option("--dsn", default=None,
              help="dump this database as it is (default: a temporary database migrated to head)")
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write the snapshot file here (with its header) instead of printing")
@click.option("--check", "check", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="compare with this snapshot file; print the diff and exit 1 when they differ")
def main(dsn: str | None, output: Path | None, check: Path | None) -> None:
    """Print (or write, or check) the normalised schema dump of the ledger."""
    text = with_header(snapshot(dsn) if dsn else head_snapshot())
    if check is not None:
        delta = diff(check.read_text(), text, str(check), dsn or "head")
        if delta:
            click.echo(delta, nl=False)
            sys.exit(1)
        click.echo(f"{check}: up to date")
    elif output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text)
        click.echo(f"wrote {output}")
    else:
        click.echo(text, nl=False)


if __name__ == "__main__":
    main()
