"""migration_ops.create_index_concurrently: the documented way (docs/dba.md)
to index a table that may already hold data. Exercised by a probe revision
on top of the real history, online and offline: the build runs outside the
revision's transaction, recovers from an INVALID index left by an earlier
failed build, and the downgrade removes it."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from _migrations import ROOT, psql_apply, revisions
from alembic import command
from alembic.config import Config

PROBE = '''"""probe: index finding titles without blocking writers"""
from findings_ledger.migration_ops import create_index_concurrently, drop_index_concurrently, run_sql

revision = "9999_probe_index"
down_revision = {head!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql("COMMENT ON COLUMN ledger.finding.title IS 'indexed by finding_title_idx';")
    create_index_concurrently(
        "finding_title_idx", "CREATE INDEX CONCURRENTLY finding_title_idx ON ledger.finding (scope, title);"
    )


def downgrade() -> None:
    drop_index_concurrently("finding_title_idx")
    run_sql("COMMENT ON COLUMN ledger.finding.title IS NULL;")
'''

INDEX = """
SELECT i.indisvalid, pg_get_indexdef(i.indexrelid)
  FROM pg_index i WHERE i.indexrelid = to_regclass('ledger.finding_title_idx')
"""


def _config(tmp_path: Path, buffer: io.StringIO | None = None) -> Config:
    where = tmp_path / "migrations"
    if not where.exists():
        shutil.copytree(ROOT / "migrations", where, ignore=shutil.ignore_patterns("__pycache__"))
        (where / "versions" / "9999_probe_index.py").write_text(PROBE.format(head=revisions()[-1]))
    cfg = Config(output_buffer=buffer)
    cfg.set_main_option("script_location", str(where))
    return cfg


def _index(dsn: str) -> list[tuple[bool, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(INDEX).fetchall()


EXPECTED = [(True, "CREATE INDEX finding_title_idx ON ledger.finding USING btree (scope, title)")]


def test_the_index_is_built_outside_the_revision_transaction(tmp_path: Path) -> None:
    buffer = io.StringIO()
    command.upgrade(_config(tmp_path, buffer), f"{revisions()[-1]}:9999_probe_index", sql=True)
    script = buffer.getvalue()
    build = script.index("CREATE INDEX CONCURRENTLY finding_title_idx")
    assert script.rfind("COMMIT;", 0, build) > script.rfind("BEGIN;", 0, build)
    assert "DROP INDEX CONCURRENTLY IF EXISTS ledger.finding_title_idx;" in script[:build]
    assert script.index("BEGIN;", build) < script.index("UPDATE ledger.alembic_version")


def test_online_build_recovers_from_an_invalid_index_and_downgrades(
    tmp_path: Path, ledger_dsn: str
) -> None:
    with psycopg.connect(ledger_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO ledger.finding (scope, title) SELECT 's', 'same title' FROM generate_series(1, 50)")
        with pytest.raises(psycopg.errors.UniqueViolation):
            # An earlier attempt that failed half-way leaves an INVALID index of that name.
            conn.execute("CREATE UNIQUE INDEX CONCURRENTLY finding_title_idx ON ledger.finding (title)")
    assert [valid for valid, _ in _index(ledger_dsn)] == [False]
    cfg = _config(tmp_path)
    cfg.attributes["dsn"] = ledger_dsn
    command.upgrade(cfg, "heads")
    assert _index(ledger_dsn) == EXPECTED
    command.downgrade(cfg, revisions()[-1])
    assert _index(ledger_dsn) == []


def test_offline_build_applied_with_psql_equals_online(
    tmp_path: Path, ledger_database_factory: Callable[..., str]
) -> None:
    online, offline = ledger_database_factory(), ledger_database_factory()
    cfg = _config(tmp_path)
    cfg.attributes["dsn"] = online
    command.upgrade(cfg, "heads")
    buffer = io.StringIO()
    command.upgrade(_config(tmp_path, buffer), f"{revisions()[-1]}:9999_probe_index", sql=True)
    psql_apply(offline, buffer.getvalue())
    assert _index(offline) == _index(online) == EXPECTED


def test_a_blocking_index_statement_is_refused() -> None:
    from findings_ledger.migration_ops import create_index_concurrently

    with pytest.raises(ValueError):
        create_index_concurrently("x_idx", "CREATE INDEX x_idx ON ledger.finding (title);")
