"""Alembic environment for the ``ledger`` schema.

* The target database is ``-x dsn=...`` or ``$LEDGER_DSN`` (libpq DSN or
  ``postgresql://`` URI); psycopg 3 connects, so both forms work. A caller
  may instead hand over an SQLAlchemy ``Connection`` or ``Engine`` in
  ``config.attributes["connection"]`` (pytest-alembic does).
* The version table is ``ledger.alembic_version``: everything the project
  owns lives in the ``ledger`` schema, which this file creates first.
* One run at a time per database: a run first takes the advisory lock
  ``pg_advisory_xact_lock(hashtextextended('findings-ledger migrations', 0))``
  (:data:`findings_ledger.migration_ops.MIGRATION_LOCK_KEY`) on a
  connection of its own, in a transaction held open for the whole run
  (so it also holds behind a transaction-mode pooler, and a killed run
  releases it). A run that finds the lock taken says so on one line on
  stderr and waits up to ``-x migration_lock_timeout=...`` /
  ``LEDGER_MIGRATION_LOCK_TIMEOUT`` (default 10min; ``0`` waits for ever);
  it then reads the version the other run left (at head: nothing to do).
  One that cannot get it in time fails with one line
  (:class:`findings_ledger.errors.MigrationLocked`, SQLSTATE 55P03) and
  changes nothing. A caller's own ``Connection`` takes the session form
  (``pg_advisory_lock``) on that connection, released at the end. The
  offline script takes the session lock at its top and releases it at its
  end (apply it on a direct connection, not through a transaction-mode
  pooler).
* Settings are transaction-local: each revision's transaction opens with
  ``SET LOCAL`` ``lock_timeout`` (default 5s), ``statement_timeout``
  (default 30min), ``ledger.allow_data_loss`` and ``search_path =
  pg_catalog`` (so a revision that forgets to schema-qualify a name fails
  here instead of depending on the role's default ``search_path``), online
  and offline (``--sql``); none outlives its transaction, so a pooled server
  connection keeps none of them. Override the timeouts with ``-x
  lock_timeout=...`` / ``-x statement_timeout=...`` or
  ``LEDGER_LOCK_TIMEOUT`` / ``LEDGER_STATEMENT_TIMEOUT`` (``0`` disables).
  A DDL statement that cannot get its lock within lock_timeout fails with
  SQLSTATE 55P03 instead of queueing every other session behind it. The
  statements of a ``concurrently.sql`` run outside any transaction, without
  these settings.
* ``-x allow_data_loss=true`` sets ``ledger.allow_data_loss``: a downgrade
  below the baseline refuses (LD501) without it while the ledger holds rows,
  and a downgrade that drops a column or table refuses while it holds data
  (each such revision's ``downgrade_guard.sql``; online, every guard of the
  revisions to undo runs before the first one is undone).
* One transaction per revision, so a revision may open an autocommit block
  (``CREATE INDEX CONCURRENTLY``, see docs/dba.md).
* A database at a revision a release folded away (``migrations/replaced/``,
  :mod:`findings_ledger.folds`) is refused with one line saying to run
  ``findings-ledger migrate``, which upgrades it through the archived
  revisions and stamps it forward; that run sets
  ``config.attributes["ledger_replaced_chain"]``.
* Offline, the script first checks that the database is at the revision it
  starts from (LD502 otherwise, before anything changes), and so does each
  revision block (:func:`findings_ledger.migration_ops.version_guard`).
* A failed statement under the ``alembic`` command line is one line (its
  SQLSTATE and message, with a hint where there is one), not the
  statement's text; through :func:`findings_ledger.migrate` the error is
  raised as it is.
* ``alembic revision --autogenerate`` is refused: a revision is written by
  ``make revision`` (tools/new_revision.py), whose SQL files autogenerate
  cannot write.
* Autogenerate (``alembic check``, pytest-alembic's
  ``test_model_definitions_match_ddl``) compares the ``ledger`` tables with
  :mod:`findings_ledger.schema`.
"""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import sqlalchemy as sa
from alembic import context

from findings_ledger import migration_ops
from findings_ledger import schema as ledger_schema

SCHEMA = ledger_schema.SCHEMA
config = context.config
xargs = context.get_x_argument(as_dictionary=True)

def _setting(name: str, default: str) -> str:
    value = xargs.get(name) or os.environ.get(f"LEDGER_{name.upper()}") or default
    if not migration_ops.DURATION.match(value):
        raise SystemExit(
            f"findings-ledger migrations: invalid {name} {value!r}: expected a duration such as 5s, 500ms, 10min or 0"
        )
    return value.strip()


def _allow_data_loss() -> str:
    value = (xargs.get("allow_data_loss") or "false").strip().lower()
    if value not in ("true", "false"):
        raise SystemExit(f"findings-ledger migrations: invalid allow_data_loss {value!r}: expected true or false")
    return value


def _transaction_settings() -> list[str]:
    """The ``SET LOCAL`` statements that open every revision's transaction,
    online and offline."""
    return [
        f"SET LOCAL lock_timeout = '{_setting('lock_timeout', '5s')}'",
        f"SET LOCAL statement_timeout = '{_setting('statement_timeout', '30min')}'",
        f"SET LOCAL ledger.allow_data_loss = '{_allow_data_loss()}'",
        "SET LOCAL search_path = pg_catalog",
    ]


def _refuse_autogenerate() -> None:
    cmd = getattr(config.cmd_opts, "cmd", None)
    if cmd and getattr(cmd[0], "__name__", "") == "revision" and getattr(config.cmd_opts, "autogenerate", False):
        raise SystemExit(
            "findings-ledger migrations: alembic revision --autogenerate cannot write a revision's SQL files: "
            "run `make revision M='what it does'` (tools/new_revision.py, docs/dba.md)"
        )


_refuse_autogenerate()
# Computed before connecting, so a mistyped timeout fails without touching the database.
TRANSACTION_SETTINGS = _transaction_settings()
LOCK_WAIT = _setting("migration_lock_timeout", "10min")
LOCK_KEY = migration_ops.MIGRATION_LOCK_KEY
# Under the alembic command line (no caller's dsn or connection), errors are one line.
COMMAND_LINE = "dsn" not in config.attributes and "connection" not in config.attributes


def _autogenerate_options() -> dict:
    return {
        **ledger_schema.AUTOGENERATE_OPTIONS,
        "target_metadata": config.attributes.get("target_metadata") or ledger_schema.metadata,
        "process_revision_directives": config.attributes.get("process_revision_directives"),
    }


def _configure(**kw: object) -> None:
    context.configure(
        version_table_schema=SCHEMA,
        transaction_per_migration=True,
        ledger_transaction_settings=TRANSACTION_SETTINGS,
        **_autogenerate_options(),
        **kw,
    )


def run_offline() -> None:
    _configure(dialect_name="postgresql", literal_binds=True)
    script = context.script
    start = context.get_starting_revision_argument()
    starts: tuple[str, ...] = ()
    if start not in (None, "base"):
        starts = tuple(script.get_revision(r).revision for r in ([start] if isinstance(start, str) else start))
    target = context.get_revision_argument()
    work = getattr(getattr(context, "_proxy", None), "context_opts", {}).get("fn")
    direction = "downgrade" if getattr(work, "__name__", "") == "downgrade" else "upgrade"
    for statement in (
        f"SET lock_timeout = '{LOCK_WAIT}'",
        f"SELECT pg_catalog.pg_advisory_lock({LOCK_KEY})",
        "RESET lock_timeout",
    ):
        context.execute(statement)
    context.get_context().impl.static_output(migration_ops.version_guard(starts, str(target or "base"), direction))
    for statement in ("BEGIN", *TRANSACTION_SETTINGS, f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}", "COMMIT"):
        context.execute(statement)
    context.run_migrations()
    context.execute(f"SELECT pg_catalog.pg_advisory_unlock({LOCK_KEY})")


def _locked_out() -> Exception:
    from findings_ledger.errors import MigrationLocked

    message = (f"another migration of this database held the migration lock for longer than {LOCK_WAIT} "
               "(-x migration_lock_timeout=... / LEDGER_MIGRATION_LOCK_TIMEOUT): nothing was changed")
    if COMMAND_LINE:
        return SystemExit(f"findings-ledger migrations: {message}")
    return MigrationLocked(message, sqlstate="55P03")


def run_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is None:
        dsn = xargs.get("dsn") or config.attributes.get("dsn") or os.environ.get("LEDGER_DSN")
        if not dsn:
            raise SystemExit(
                "findings-ledger migrations: set LEDGER_DSN or pass -x dsn=... (libpq DSN or postgresql:// URI)"
            )
        with migration_ops.lock_connection(dsn, LOCK_WAIT, _locked_out):
            engine = sa.create_engine(
                "postgresql+psycopg://", creator=lambda: psycopg.connect(dsn), poolclass=sa.pool.NullPool
            )
            with engine.connect() as conn:
                _configure_and_run(conn)
    elif isinstance(connectable, sa.Engine):
        with connectable.connect() as conn, migration_ops.lock_session(conn, LOCK_WAIT, _locked_out):
            _configure_and_run(conn)
    else:
        with migration_ops.lock_session(connectable, LOCK_WAIT, _locked_out):
            _configure_and_run(connectable)


def _guard_known_revision(conn: sa.Connection) -> None:
    """Before any revision: a database at a revision this findings-ledger does not ship (a newer
    release migrated it) is refused with LD503, saying how to go back, instead of alembic's "Can't
    locate revision". Not for ``alembic stamp --purge``, the way to record another revision."""
    environment = getattr(context, "_proxy", None)
    if getattr(environment, "context_opts", {}).get("purge"):
        return
    script = context.script
    if not config.attributes.get("ledger_replaced_chain"):
        at = conn.exec_driver_sql("SELECT to_regclass('ledger.alembic_version') IS NOT NULL").scalar()
        if at:
            from findings_ledger import folds

            for (rev,) in conn.exec_driver_sql("SELECT version_num FROM ledger.alembic_version"):
                fold = folds.fold_of(rev, Path(__file__).resolve().parent)
                if fold is not None:
                    raise SystemExit(f"findings-ledger migrations: {folds.replaced_message(rev, fold)}")
    known = [r.revision for r in script.walk_revisions()]
    conn.exec_driver_sql(migration_ops.known_revision_guard(known, script.get_heads()),
                         execution_options={"no_parameters": True})


def _downgraded_revisions(conn: sa.Connection, destination: str) -> list[str]:
    """The revisions a downgrade from the recorded version to ``destination``
    undoes, newest first (empty when it cannot tell: alembic then reports the
    destination itself)."""
    at = conn.exec_driver_sql("SELECT to_regclass('ledger.alembic_version') IS NOT NULL").scalar()
    if not at:
        return []
    current = tuple(r for (r,) in conn.exec_driver_sql("SELECT version_num FROM ledger.alembic_version"))
    if not current:
        return []
    try:
        steps = context.script._downgrade_revs(destination, current)
    except Exception:  # an unknown or malformed destination: alembic's own message follows
        return []
    return [step.revision.revision for step in steps]


def _guard_downgrade(conn: sa.Connection) -> None:
    """Before a downgrade starts: the guard (``downgrade_guard.sql``, LD501
    while a column or table it drops holds data) of every revision it undoes,
    newest first, so that later revisions are not downgraded, each in its own
    committed transaction, only for an earlier one to refuse. Down to
    ``base`` only the baseline's guard runs: it refuses while the ledger
    holds any row, and an empty ledger loses nothing anywhere."""
    environment = getattr(context, "_proxy", None)
    opts = getattr(environment, "context_opts", {})
    if getattr(opts.get("fn"), "__name__", "") != "downgrade":
        return
    # The destination as given ('base', '-1', a revision), not resolved:
    # get_revision_argument() answers None for base.
    destination = opts.get("destination_rev")
    if destination is None:
        return
    exists = conn.exec_driver_sql("SELECT to_regclass('ledger.finding') IS NOT NULL").scalar()
    if not exists:
        return
    versions = Path(__file__).resolve().parent / "versions"
    if destination == "base":
        guards = [versions / "0001_baseline" / "downgrade_guard.sql"]
    else:
        guards = [versions / rev / "downgrade_guard.sql" for rev in _downgraded_revisions(conn, str(destination))]
    for guard in guards:
        if guard.exists():
            conn.exec_driver_sql(migration_ops.expand_includes(guard), execution_options={"no_parameters": True})


def _one_line(exc: sa.exc.DBAPIError) -> str:
    """A failed statement as one line: SQLSTATE, message, hint (not the statement)."""
    orig = exc.orig
    diag = getattr(orig, "diag", None)
    message = (getattr(diag, "message_primary", None) or str(orig)).strip().splitlines()[0]
    hint = getattr(diag, "message_hint", None)
    state = getattr(orig, "sqlstate", None)
    text = f"findings-ledger migrations: {message}" + (f" [{state}]" if state else "")
    if hint:
        text += f" (hint: {' '.join(hint.split())})"
    from findings_ledger.errors import migration_hint

    extra = migration_hint(orig) if isinstance(orig, psycopg.Error) else None
    return text + (f": {extra}" if extra else "")


def _configure_and_run(conn: sa.Connection) -> None:
    try:
        for statement in (*TRANSACTION_SETTINGS, f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}"):
            conn.exec_driver_sql(statement)
        conn.commit()
        for statement in TRANSACTION_SETTINGS:
            conn.exec_driver_sql(statement)
        _guard_known_revision(conn)
        _guard_downgrade(conn)
        conn.rollback()
        _configure(connection=conn)
        with context.begin_transaction():
            context.run_migrations()
        conn.commit()
    except sa.exc.DBAPIError as exc:
        if not COMMAND_LINE:
            raise
        raise SystemExit(_one_line(exc)) from None


if context.is_offline_mode():
    run_offline()
else:
    run_online()
