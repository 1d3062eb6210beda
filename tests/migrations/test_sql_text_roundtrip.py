"""Frozen SQL reaches the database byte for byte, online and offline.

A throwaway script directory with our env.py and one revision whose SQL
holds everything that breaks naive executors: ``%`` and ``%%`` (RAISE
formats, pyformat), ``:name`` and ``%(name)s`` (bind-parameter syntax),
``$$`` inside a ``$fn$`` body, ``::`` casts, JSON literals ``'{"v":1}'``,
backslash escapes. It is applied online (``run_sql`` through the driver
with no parameters) and offline (``--sql`` piped to psql, with a psql
variable named ``name`` defined, which must not leak into the bodies);
the stored function source must equal the revision's text exactly in both.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.config import Config
from support.migrations import ROOT, psql_apply

BODY = r"""
DECLARE
    v_doc  jsonb := '{"v":1, "tags": ["a:b", "100%"]}';
    v_text text := $$a $ b :name c %(name)s d %s e 100% f %% g ::text h$$;
BEGIN
    IF p_name = '%' THEN
        RAISE EXCEPTION 'invalid name: % (100%% wrong, see :name)', p_name USING ERRCODE = 'LD003';
    END IF;
    RETURN jsonb_build_object('doc', v_doc, 'text', v_text, 'name', p_name::text, 'tab', E'x\ty');
END
"""

REVISION = (
    '''"""probe"""
from findings_ledger.migration_ops import run_sql

revision = "0001_probe"
down_revision = None
branch_labels = None
depends_on = None

PROBE = r\'\'\'
CREATE TABLE ledger.probe (doc jsonb NOT NULL DEFAULT '{"v":1}', note text DEFAULT ':name %s %(x)s 5%');
CREATE FUNCTION ledger.probe(p_name text) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog
AS $fn$'''
    + BODY
    + '''$fn$;
COMMENT ON FUNCTION ledger.probe(text) IS 'takes :name, returns {"v":1} at 100%';
\'\'\'


def upgrade() -> None:
    run_sql(PROBE)


def downgrade() -> None:
    run_sql("DROP FUNCTION ledger.probe(text); DROP TABLE ledger.probe;")
'''
)

EXPECTED = {
    "doc": {"v": 1, "tags": ["a:b", "100%"]},
    "text": "a $ b :name c %(name)s d %s e 100% f %% g ::text h",
    "name": "n:1",
    "tab": "x\ty",
}


def _script_dir(tmp_path: Path) -> Path:
    where = tmp_path / "migrations"
    (where / "versions").mkdir(parents=True)
    shutil.copy(ROOT / "migrations" / "env.py", where / "env.py")
    (where / "versions" / "0001_probe.py").write_text(REVISION)
    return where


def _config(where: Path, buffer: io.StringIO | None = None) -> Config:
    cfg = Config(output_buffer=buffer)
    cfg.set_main_option("script_location", str(where))
    return cfg


def _stored(dsn: str) -> tuple[str, str, str, dict]:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "SELECT p.prosrc, obj_description(p.oid, 'pg_proc'), "
            "pg_get_expr(d.adbin, d.adrelid) FROM pg_proc p, pg_attrdef d "
            "WHERE p.oid = 'ledger.probe(text)'::regprocedure "
            "AND d.adrelid = 'ledger.probe'::regclass AND d.adnum = 2"
        ).fetchone()
        result = conn.execute("SELECT ledger.probe('n:1')").fetchone()
        assert row is not None and result is not None
        return row[0], row[1], row[2], result[0]


def test_tricky_sql_survives_online_and_offline(tmp_path: Path, ledger_database_factory: Callable[..., str]) -> None:
    where = _script_dir(tmp_path)
    online = ledger_database_factory(migrated=False)
    cfg = _config(where)
    cfg.attributes["dsn"] = online
    command.upgrade(cfg, "head")

    buffer = io.StringIO()
    command.upgrade(_config(where, buffer), "head", sql=True)
    offline = ledger_database_factory(migrated=False)
    psql_apply(offline, buffer.getvalue(), "-v", "name=LEAKED", "-v", "x=LEAKED")

    expected = (BODY, 'takes :name, returns {"v":1} at 100%', "':name %s %(x)s 5%'::text", EXPECTED)
    assert _stored(online) == expected
    assert _stored(offline) == expected


def test_the_probe_raises_through_its_percent_format(ledger_database_factory: Callable[..., str],
                                                    tmp_path: Path) -> None:
    cfg = _config(_script_dir(tmp_path))
    cfg.attributes["dsn"] = dsn = ledger_database_factory(migrated=False)
    command.upgrade(cfg, "head")
    with psycopg.connect(dsn) as conn, pytest.raises(psycopg.Error) as info:
        conn.execute("SELECT ledger.probe('%')")
    assert info.value.sqlstate == "LD003"
