"""How revisions execute frozen SQL, identically online and offline.

A revision passes the literal text of its frozen SQL (functions with
``$$`` bodies, ``%`` in RAISE formats, ``:name``-like text, JSON literals)
to :func:`run_sql`. Online, the text goes to the driver unparsed
(``no_parameters``: psycopg sees no placeholders); offline
(``alembic upgrade --sql``), it is written to the script verbatim. Neither
path runs it through SQLAlchemy's ``text()``, which would treat ``:name`` as
a bind parameter and double ``%`` signs.

This module is part of the migration history's machinery: keep it
backwards compatible, since every revision imports it.
"""

from __future__ import annotations

from alembic import op


def run_sql(sql: str) -> None:
    """Execute ``sql`` (one or more complete statements, each ending in ``;``)."""
    ctx = op.get_context()
    if ctx.as_sql:
        ctx.impl.static_output(sql.strip() + "\n")
    else:
        op.get_bind().exec_driver_sql(sql, execution_options={"no_parameters": True})


def create_index_concurrently(name: str, create_sql: str, schema: str = "ledger") -> None:
    """Build an index on a table that may already hold data without blocking
    its writers: ``CREATE INDEX CONCURRENTLY`` outside the revision's
    transaction (``autocommit_block``), online and offline alike.

    ``create_sql`` is the complete statement and must say ``CONCURRENTLY``.
    A concurrent build that failed earlier leaves an INVALID index behind,
    so the index is first dropped (``DROP INDEX CONCURRENTLY IF EXISTS``):
    re-running the revision after such a failure just works, PROVIDED that
    everything the revision ran before the build is idempotent: the
    revision's own transaction commits before the build (the version table
    is updated only after it), so a rerun runs that part again. Put the
    index in a revision of its own, or write the DDL before it with
    ``IF NOT EXISTS`` / ``CREATE OR REPLACE`` / ``IF EXISTS`` (squawk's
    prefer-robust-stmts flags it otherwise; docs/dba.md). In the revision's
    ``downgrade()``, drop it with ``drop_index_concurrently(name)``.
    """
    if "CONCURRENTLY" not in create_sql.upper():
        raise ValueError(f"create_index_concurrently({name!r}): the statement must use CREATE INDEX CONCURRENTLY")
    with op.get_context().autocommit_block():
        run_sql(f"DROP INDEX CONCURRENTLY IF EXISTS {schema}.{name};")
        run_sql(create_sql)


def drop_index_concurrently(name: str, schema: str = "ledger") -> None:
    """``DROP INDEX CONCURRENTLY IF EXISTS`` outside the revision's transaction."""
    with op.get_context().autocommit_block():
        run_sql(f"DROP INDEX CONCURRENTLY IF EXISTS {schema}.{name};")
