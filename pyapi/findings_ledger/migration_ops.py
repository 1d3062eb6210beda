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
