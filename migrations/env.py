"""Alembic environment for the ``ledger`` schema.

* The target database is ``-x dsn=...`` or ``$LEDGER_DSN`` (libpq DSN or
  ``postgresql://`` URI); psycopg 3 connects, so both forms work.
* The version table is ``ledger.alembic_version``: everything the project
  owns lives in the ``ledger`` schema, which this file creates first.
* ``search_path`` is pinned to ``pg_catalog`` for the run, so a revision that
  forgets to schema-qualify a name fails here instead of depending on the
  role's default ``search_path``.
* Online runs set ``lock_timeout`` (default 5s) and ``statement_timeout``
  (default 30min); override with ``-x lock_timeout=...`` /
  ``-x statement_timeout=...`` or ``LEDGER_LOCK_TIMEOUT`` /
  ``LEDGER_STATEMENT_TIMEOUT``.
* One transaction per revision, so a revision may open an autocommit block
  (``CREATE INDEX CONCURRENTLY``).
"""

from __future__ import annotations

import os

import psycopg
import sqlalchemy as sa
from alembic import context

SCHEMA = "ledger"
config = context.config
xargs = context.get_x_argument(as_dictionary=True)


def _setting(name: str, default: str) -> str:
    return xargs.get(name) or os.environ.get(f"LEDGER_{name.upper()}") or default


def _preamble() -> None:
    context.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    context.execute("SET search_path = pg_catalog")


def run_offline() -> None:
    context.configure(
        dialect_name="postgresql",
        literal_binds=True,
        version_table_schema=SCHEMA,
        transaction_per_migration=True,
    )
    with context.begin_transaction():
        _preamble()
        context.run_migrations()


def run_online() -> None:
    dsn = xargs.get("dsn") or config.attributes.get("dsn") or os.environ.get("LEDGER_DSN")
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure_and_run(connection)
        return
    if not dsn:
        raise SystemExit("findings-ledger migrations: set LEDGER_DSN or pass -x dsn=... (libpq DSN or postgresql:// URI)")
    engine = sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(dsn), poolclass=sa.pool.NullPool)
    with engine.connect() as conn:
        _configure_and_run(conn)


def _configure_and_run(conn: sa.Connection) -> None:
    conn.exec_driver_sql(f"SET lock_timeout = '{_setting('lock_timeout', '5s')}'")
    conn.exec_driver_sql(f"SET statement_timeout = '{_setting('statement_timeout', '30min')}'")
    conn.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    conn.exec_driver_sql("SET search_path = pg_catalog")
    conn.commit()
    context.configure(
        connection=conn,
        version_table_schema=SCHEMA,
        transaction_per_migration=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    conn.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
