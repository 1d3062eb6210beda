"""Helpers for the tests of the migration path (not a test module).

Every helper walks the alembic script directory, so the tests cover every
revision there is, whoever added it. The ones that can run the baseline's
downgrade (``DROP ROLE``) hold :func:`below_baseline` while they do.
"""

from __future__ import annotations

import io
import subprocess
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import psycopg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

from findings_ledger import api
from findings_ledger.migration_ops import collapse_whitespace
from findings_ledger.testing.cluster import catalog_lock
from findings_ledger.testing.schema_dump import client_binary, diff, snapshot

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"


def ini_config(buffer: io.StringIO | None = None, dsn: str | None = None, **x: str) -> Config:
    """The repository's alembic.ini, as ``alembic`` on the command line reads it."""
    cfg = Config(str(ALEMBIC_INI), output_buffer=buffer)
    if dsn is not None:
        cfg.attributes["dsn"] = dsn
    if x:
        import argparse

        cfg.cmd_opts = argparse.Namespace(x=[f"{k}={v}" for k, v in x.items()])
    return cfg


def revisions() -> list[str]:
    """Every revision id, from the first to head (one line of history)."""
    script = ScriptDirectory.from_config(ini_config())
    return [r.revision for r in reversed(list(script.walk_revisions("base", "heads")))]


def offline_sql(spec: str, downgrade: bool = False, **x: str) -> str:
    """``alembic upgrade SPEC --sql`` (or downgrade) as a string."""
    buffer = io.StringIO()
    cfg = ini_config(buffer, **x)
    (command.downgrade if downgrade else command.upgrade)(cfg, spec, sql=True)
    return buffer.getvalue()


def upgrade(dsn: str, revision: str = "head") -> None:
    api.migrate(dsn, revision)


def below_baseline(dsn: str) -> AbstractContextManager[None]:
    """The exclusive catalog lock, for a downgrade below the baseline on
    ``dsn``'s server: its ``DROP ROLE`` fails with ``cache lookup failed for
    database N`` when another worker's ``DROP DATABASE`` commits during its
    dependency check (:func:`findings_ledger.testing.cluster.catalog_lock`)."""
    return catalog_lock(dsn, exclusive=True)


def downgrade(dsn: str, revision: str) -> None:
    if revision != "base":
        command.downgrade(api.alembic_config(dsn), revision)
        return
    with below_baseline(dsn):
        command.downgrade(api.alembic_config(dsn), revision)


def psql_apply(dsn: str, script: str, *extra: str) -> str:
    """Apply ``script`` the way a DBA does: ``psql -X -v ON_ERROR_STOP=1``.
    Returns psql's output; raises AssertionError with psql's errors. A
    script that drops roles runs under :func:`below_baseline`."""
    with below_baseline(dsn) if "DROP ROLE" in script else nullcontext():
        proc = subprocess.run(
            [client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", *extra, "-d", dsn, "-f", "-"],
            input=script,
            capture_output=True,
            text=True,
        )
    assert proc.returncode == 0, f"psql failed ({proc.returncode}):\n{proc.stderr}"
    return proc.stdout


def psql_file(dsn: str, path: Path) -> None:
    """``psql -X -v ON_ERROR_STOP=1 -f PATH`` from another directory (includes
    resolve relative to the file, as for a DBA); raises AssertionError with
    psql's errors. A file that drops roles runs under :func:`below_baseline`."""
    with below_baseline(dsn) if "DROP ROLE" in path.read_text() else nullcontext():
        proc = subprocess.run([client_binary("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dsn, "-f", str(path)],
                              capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, f"psql -f {path} failed:\n{proc.stderr}"


def script_body(path: Path) -> list[str]:
    """The statements of a revision script tools/new_revision.py wrote: its
    lines after the title line and the blank line, and, in an upgrade.sql,
    after the version guard it opens with (asserted there:
    :func:`findings_ledger.migration_ops.revision_guard`) and its blank line."""
    lines = path.read_text().splitlines()[2:]
    if path.name == "upgrade.sql":
        end = "$ledger_revision_guard$;"
        assert lines[:2] == ["\\set ON_ERROR_STOP on", "DO $ledger_revision_guard$"] and end in lines, lines[:3]
        lines = lines[lines.index(end) + 2:]
    return lines


#: alembic's version table, for databases built without alembic (psql -f).
VERSION_TABLE = ("CREATE TABLE ledger.alembic_version (version_num varchar(32) NOT NULL, "
                 "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")


def stamp(dsn: str, rev: str | None) -> None:
    """What ``alembic stamp`` records after a ``psql -f`` of a revision (the
    version table created where a by-file install has none yet)."""
    with psycopg.connect(dsn, autocommit=True) as conn, conn.transaction():
        conn.execute(VERSION_TABLE.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        conn.execute("DELETE FROM ledger.alembic_version")
        if rev:
            conn.execute("INSERT INTO ledger.alembic_version (version_num) VALUES (%s)", (rev,))


def version(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        exists = conn.execute("SELECT to_regclass('ledger.alembic_version') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return []
        return [r[0] for r in conn.execute("SELECT version_num FROM ledger.alembic_version ORDER BY 1")]


FUNCTIONS = """
SELECT p.oid::regprocedure::text, pg_get_functiondef(p.oid), coalesce(obj_description(p.oid, 'pg_proc'), '')
  FROM pg_proc p WHERE p.pronamespace = 'ledger'::regnamespace ORDER BY 1
"""


def functions(dsn: str) -> dict[str, tuple[str, str]]:
    """Every ledger function: signature -> (pg_get_functiondef, comment)."""
    with psycopg.connect(dsn) as conn:
        return {r[0]: (r[1], r[2]) for r in conn.execute(FUNCTIONS)}


def ledger_relations(dsn: str) -> list[tuple[str, str]]:
    """(relkind, name) of everything left in schema ledger, and its other objects."""
    with psycopg.connect(dsn) as conn:
        return [
            (r[0], r[1])
            for r in conn.execute(
                "SELECT c.relkind::text, c.relname::text FROM pg_class c "
                "WHERE c.relnamespace = to_regnamespace('ledger') "
                "UNION ALL SELECT 'function', p.proname::text FROM pg_proc p "
                "WHERE p.pronamespace = to_regnamespace('ledger') "
                "UNION ALL SELECT 'type', t.typname::text FROM pg_type t "
                "WHERE t.typnamespace = to_regnamespace('ledger') AND t.typrelid = 0 AND t.typelem = 0 "
                "ORDER BY 1, 2"
            )
        ]


class Schema:
    """A database's schema as :func:`assert_same_schema` compares it: the
    normalised dump and every ledger function's definition and comment, up
    to whitespace outside quoted literals (tools/new_revision.py freezes no
    change of whitespace alone, so a re-indented function body in sql/
    stays as its revision froze it). Taken once, compared with many.

    Texts that are equal as they are need no collapsing (equal texts collapse
    alike), so only a text that differs is collapsed, once: the walk of
    tests/migrations/test_offline_sql.py compares 180 schemas."""

    def __init__(self, dsn: str) -> None:
        self.dump = snapshot(dsn)
        self.raw_functions = functions(dsn)
        self._collapsed: dict[str, str] = {}

    def _collapse(self, text: str) -> str:
        if text not in self._collapsed:
            self._collapsed[text] = collapse_whitespace(text)
        return self._collapsed[text]

    @property
    def functions(self) -> dict[str, tuple[str, ...]]:
        """Every ledger function's definition and comment, whitespace collapsed."""
        return {k: tuple(map(self._collapse, v)) for k, v in self.raw_functions.items()}

    def assert_equals(self, actual: Schema, what: str) -> None:
        if self.dump != actual.dump and self._collapse(self.dump) != actual._collapse(actual.dump):
            delta = diff(self.dump, actual.dump, "online", what)
            raise AssertionError(f"{what} differs from the online migration:\n{delta}")
        if actual.raw_functions != self.raw_functions:
            assert actual.functions == self.functions, f"{what}: function definitions differ"


def assert_same_schema(expected_dsn: str, actual_dsn: str, what: str) -> None:
    """The two databases' :class:`Schema` are equal."""
    Schema(expected_dsn).assert_equals(Schema(actual_dsn), what)


def settings(conn: Any, *names: str) -> dict[str, str]:
    """Current values of the named settings on an SQLAlchemy connection."""
    return {n: conn.exec_driver_sql(f"SHOW {n}").scalar_one() for n in names}


def copy_project(tmp_path: Path) -> Path:
    """A copy of sql/ and migrations/ under ``tmp_path``, to write revisions into."""
    import shutil

    shutil.copytree(ROOT / "sql", tmp_path / "sql")
    shutil.copytree(ROOT / "migrations", tmp_path / "migrations", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def new_revision_tool(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """tools/new_revision.py run on the copy ``project`` (see :func:`copy_project`)."""
    import sys

    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / "new_revision.py"), "--sql-dir", str(project / "sql"),
         "--migrations", str(project / "migrations"), *args],
        capture_output=True, text=True,
    )


def migrate_project(dsn: str, project: Path, spec: str, down: bool = False) -> None:
    """alembic upgrade (or downgrade) ``dsn`` to ``spec`` with the copy's migrations."""
    cfg = api.alembic_config(dsn)
    cfg.set_main_option("script_location", str(project / "migrations"))
    (command.downgrade if down else command.upgrade)(cfg, spec)
