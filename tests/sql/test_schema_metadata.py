"""findings_ledger.schema (SQLAlchemy Core metadata) describes exactly the
tables and views the migrations create: columns, types, nullability,
server defaults, primary keys, unique and foreign keys, CHECK constraints
by name, indexes. When another revision adds a table or a column, the
failure says what to add to pyapi/findings_ledger/schema.py."""

from __future__ import annotations

from typing import Any

import psycopg
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata, produce_migrations, render_python_code
from alembic.migration import MigrationContext
from support.touch_policy import drift_retires_on_touch

from findings_ledger import schema

#: these tests exercise the path rule on drift findings: their scopes retire on a touch
_touch_retire = drift_retires_on_touch("s")


def _describe(diff: Any) -> str:
    """One sentence per alembic diff, from the point of view of schema.py
    (the migrations are the truth)."""
    if isinstance(diff, list):  # column modifications come grouped
        return "; ".join(_describe(d) for d in diff)
    kind = diff[0]
    if kind == "remove_table":
        return f"schema.py lacks table {diff[1].fullname} (columns {[c.name for c in diff[1].columns]})"
    if kind == "add_table":
        return f"schema.py has table {diff[1].fullname} that no revision creates"
    if kind == "remove_column":
        col = diff[3]
        return f"schema.py lacks column {diff[1]}.{diff[2]}.{col.name} {col.type} nullable={col.nullable}"
    if kind == "add_column":
        return f"schema.py has column {diff[1]}.{diff[2]}.{diff[3].name} that the database lacks"
    if kind in ("modify_nullable", "modify_type", "modify_default"):
        _, sch, table, col, _existing, db_value, meta_value = diff
        what = kind.removeprefix("modify_")
        db_value = getattr(getattr(db_value, "arg", None), "text", db_value)
        meta_value = getattr(getattr(meta_value, "arg", None), "text", meta_value)
        return f"{sch}.{table}.{col}: {what} is {db_value!r} in the database, {meta_value!r} in schema.py"
    if kind in ("add_index", "remove_index", "add_constraint", "remove_constraint", "add_fk", "remove_fk"):
        obj = diff[1]
        where = "the database lacks it" if kind.startswith("add") else "schema.py lacks it"
        return f"{kind.split('_', 1)[1]} {obj.name or obj} on {obj.table.fullname}: {where}"
    return repr(diff)


def test_metadata_matches_the_migrated_tables(ledger_dsn: str) -> None:
    engine = sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(ledger_dsn),
                              poolclass=sa.pool.NullPool)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts=dict(schema.AUTOGENERATE_OPTIONS))
        diffs = compare_metadata(context, schema.metadata)
        # The reverse migration turns schema.py into the database: its sa.Column(...)
        # and sa.Table(...) parts are what schema.py needs.
        ops = render_python_code(produce_migrations(context, schema.metadata).downgrade_ops) if diffs else ""
    engine.dispose()
    assert diffs == [], (
        "pyapi/findings_ledger/schema.py and the migrated schema disagree:\n"
        + "\n".join(f"  - {_describe(d)}" for d in diffs)
        + "\nThe database's definitions, as alembic renders them (copy the sa.Column / sa.Table "
        "parts into schema.py; the migrations are the truth):\n" + ops
    )


def test_views_described_as_tables_match_the_migrated_views(ledger_dsn: str) -> None:
    engine = sa.create_engine("postgresql+psycopg://", creator=lambda: psycopg.connect(ledger_dsn),
                              poolclass=sa.pool.NullPool)
    inspector = sa.inspect(engine)
    views = set(inspector.get_view_names(schema=schema.SCHEMA))
    assert views == set(schema.VIEWS), (
        f"views in the database {sorted(views)} vs described in schema.py {sorted(schema.VIEWS)}"
    )
    for name, table in schema.VIEWS.items():
        columns = inspector.get_columns(name, schema=schema.SCHEMA)
        reflected = [(c["name"], str(c["type"].compile(dialect=engine.dialect))) for c in columns]
        described = [(c.name, str(c.type.compile(dialect=engine.dialect))) for c in table.columns]
        assert reflected == described, f"view ledger.{name}: database has {reflected}, schema.py has {described}"
    engine.dispose()


def test_a_core_query_through_the_metadata_runs(ledger_conn: psycopg.Connection) -> None:
    # kind drift: the path rule supersedes only the kinds in scope.path_supersede_kinds (default {drift})
    ledger_conn.execute(
        "INSERT INTO ledger.finding (scope, title, kind, paths) "
        "VALUES ('s', 'a', 'drift', '{src/a.py}'), ('s', 'b', 'drift', '{docs/}')"
    )
    ledger_conn.execute("INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('s', 'abcd', '{src/a.py}')")
    query = sa.select(schema.active_finding.c.title).where(schema.active_finding.c.scope == "s")
    compiled = query.compile(dialect=sa.dialects.postgresql.dialect(), compile_kwargs={"literal_binds": True})
    assert ledger_conn.execute(str(compiled)).fetchall() == [("b",)]
    superseded = sa.select(schema.finding.c.title, schema.merge.c.commit_sha).join(
        schema.merge, schema.finding.c.superseded_by_merge_id == schema.merge.c.id
    )
    compiled = superseded.compile(dialect=sa.dialects.postgresql.dialect(), compile_kwargs={"literal_binds": True})
    assert ledger_conn.execute(str(compiled)).fetchall() == [("a", "abcd")]
    states = sa.select(schema.finding_lifecycle.c.title, schema.finding_lifecycle.c.state).order_by(
        schema.finding_lifecycle.c.id
    )
    compiled = states.compile(dialect=sa.dialects.postgresql.dialect())
    assert ledger_conn.execute(str(compiled)).fetchall() == [("a", "superseded"), ("b", "active")]
    issue_id = ledger_conn.execute("SELECT id FROM ledger.add_issue('s', 'Fix it', 'Body')").fetchone()[0]
    ledger_conn.execute("SELECT ledger.enqueue_task(%s, 'agent-1', 'rt-1')", (issue_id,))
    queued = sa.select(schema.issue.c.title, schema.agent_task.c.status).join(
        schema.agent_task, schema.agent_task.c.issue_id == schema.issue.c.id
    )
    compiled = queued.compile(dialect=sa.dialects.postgresql.dialect())
    assert ledger_conn.execute(str(compiled)).fetchall() == [("Fix it", "queued")]
