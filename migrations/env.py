"""Alembic environment for the ``ledger`` schema.

* The target database is ``-x dsn=...`` or ``$LEDGER_DSN`` (libpq DSN or
  ``postgresql://`` URI); psycopg 3 connects, so both forms work. A caller
  may instead hand over an SQLAlchemy ``Connection`` or ``Engine`` in
  ``config.attributes["connection"]`` (pytest-alembic does).
* The version table is ``ledger.alembic_version``: everything the project
  owns lives in the ``ledger`` schema, which this file creates first.
* ``search_path`` is pinned to ``pg_catalog`` for the run, so a revision that
  forgets to schema-qualify a name fails here instead of depending on the
  role's default ``search_path``.
* Every run, online and offline (``--sql``), sets ``lock_timeout`` (default
  5s) and ``statement_timeout`` (default 30min) for its session; override
  with ``-x lock_timeout=...`` / ``-x statement_timeout=...`` or
  ``LEDGER_LOCK_TIMEOUT`` / ``LEDGER_STATEMENT_TIMEOUT`` (``0`` disables).
  A DDL statement that cannot get its lock within lock_timeout fails with
  SQLSTATE 55P03 instead of queueing every other session behind it.
* ``-x allow_data_loss=true`` sets ``ledger.allow_data_loss`` for the
  session: a downgrade below the baseline refuses (LD501) without it while
  the ledger holds rows.
* One transaction per revision, so a revision may open an autocommit block
  (``CREATE INDEX CONCURRENTLY``, see docs/dba.md).
* Autogenerate (``alembic check``, pytest-alembic's
  ``test_model_definitions_match_ddl``) compares the ``ledger`` tables with
  :mod:`findings_ledger.schema`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import psycopg
import sqlalchemy as sa
from alembic import context

from findings_ledger import schema as ledger_schema

SCHEMA = ledger_schema.SCHEMA
config = context.config
xargs = context.get_x_argument(as_dictionary=True)

# A PostgreSQL duration: a number with an optional unit (0 disables).
_DURATION = re.compile(r"^\s*\d+(\.\d+)?\s*(us|ms|s|min|h|d)?\s*$")


def _setting(name: str, default: str) -> str:
    value = xargs.get(name) or os.environ.get(f"LEDGER_{name.upper()}") or default
    if not _DURATION.match(value):
        raise SystemExit(
            f"findings-ledger migrations: invalid {name} {value!r}: expected a duration such as 5s, 500ms, 10min or 0"
        )
    return value.strip()


def _allow_data_loss() -> str:
    value = (xargs.get("allow_data_loss") or "false").strip().lower()
    if value not in ("true", "false"):
        raise SystemExit(f"findings-ledger migrations: invalid allow_data_loss {value!r}: expected true or false")
    return value


def _session_settings() -> list[str]:
    """The statements that open every run, online and offline."""
    return [
        f"SET lock_timeout = '{_setting('lock_timeout', '5s')}'",
        f"SET statement_timeout = '{_setting('statement_timeout', '30min')}'",
        f"SET ledger.allow_data_loss = '{_allow_data_loss()}'",
        f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}",
        "SET search_path = pg_catalog",
    ]


# Computed before connecting, so a mistyped timeout fails without touching the database.
SESSION_SETTINGS = _session_settings()


def _autogenerate_options() -> dict:
    return {
        **ledger_schema.AUTOGENERATE_OPTIONS,
        "target_metadata": config.attributes.get("target_metadata") or ledger_schema.metadata,
        "process_revision_directives": config.attributes.get("process_revision_directives"),
    }


def run_offline() -> None:
    context.configure(
        dialect_name="postgresql",
        literal_binds=True,
        version_table_schema=SCHEMA,
        transaction_per_migration=True,
        **_autogenerate_options(),
    )
    with context.begin_transaction():
        for statement in SESSION_SETTINGS:
            context.execute(statement)
        context.run_migrations()


def run_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is None:
        dsn = xargs.get("dsn") or config.attributes.get("dsn") or os.environ.get("LEDGER_DSN")
        if not dsn:
            raise SystemExit(
                "findings-ledger migrations: set LEDGER_DSN or pass -x dsn=... (libpq DSN or postgresql:// URI)"
            )
        connectable = sa.create_engine(
            "postgresql+psycopg://", creator=lambda: psycopg.connect(dsn), poolclass=sa.pool.NullPool
        )
    if isinstance(connectable, sa.Engine):
        with connectable.connect() as conn:
            _configure_and_run(conn)
    else:
        _configure_and_run(connectable)


def _guard_downgrade_to_base(conn: sa.Connection) -> None:
    """Before ``downgrade base`` starts: the baseline's guard (LD501 while the
    ledger holds rows), so that later revisions are not downgraded, each in
    its own committed transaction, only for the baseline to refuse."""
    # The destination as given ('base'), not resolved: get_revision_argument()
    # answers None for base and for commands that have no destination.
    environment = getattr(context, "_proxy", None)
    if getattr(environment, "context_opts", {}).get("destination_rev") != "base":
        return
    exists = conn.exec_driver_sql("SELECT to_regclass('ledger.finding') IS NOT NULL").scalar()
    if not exists:
        return
    from findings_ledger.migration_ops import expand_includes

    guard = Path(__file__).resolve().parent / "versions" / "0001_baseline" / "downgrade_guard.sql"
    conn.exec_driver_sql(expand_includes(guard), execution_options={"no_parameters": True})


def _configure_and_run(conn: sa.Connection) -> None:
    for statement in SESSION_SETTINGS:
        conn.exec_driver_sql(statement)
    conn.commit()
    _guard_downgrade_to_base(conn)
    conn.rollback()
    context.configure(
        connection=conn,
        version_table_schema=SCHEMA,
        transaction_per_migration=True,
        **_autogenerate_options(),
    )
    with context.begin_transaction():
        context.run_migrations()
    conn.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
