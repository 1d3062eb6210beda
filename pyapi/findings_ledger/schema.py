"""SQLAlchemy Core metadata of the ledger's public tables (schema ``ledger``).

For Python services that query the ledger with SQLAlchemy::

    import sqlalchemy as sa
    from findings_ledger.schema import active_finding, finding

    stmt = sa.select(finding.c.id, finding.c.title).where(finding.c.superseded_at.is_(None))

The migrations (``migrations/versions``) are the truth; this module
describes what they produce. ``tests/test_schema_metadata.py`` fails, naming
every difference, when the migrated schema and this metadata disagree, and
alembic's autogenerate (``test_model_definitions_match_ddl``) compares the
same metadata through ``migrations/env.py``.

Writing through these tables is writing through the ledger's triggers: an
``insert(finding)`` is validated and normalised exactly like any other
INSERT. The columns the triggers derive (``superseded_*``, ``processed``)
are not for services to write.

``active_finding`` is the view ``ledger.active_finding``, described as a
table (``info={"view": True}``) so it can be selected from; it is excluded
from autogenerate by :func:`include_object`.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg

SCHEMA = "ledger"

#: The migrations' own bookkeeping table, not part of the public schema.
VERSION_TABLE = "alembic_version"

metadata = sa.MetaData(schema=SCHEMA)

_now = sa.text("now()")
_empty_paths = sa.text("'{}'::text[]")

scope = sa.Table(
    "scope",
    metadata,
    sa.Column("scope", sa.Text, primary_key=True),
    sa.Column("hygiene_mode", sa.Text, nullable=False, server_default=sa.text("'on'::text")),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.CheckConstraint("hygiene_mode IN ('on', 'dry', 'off')", name="scope_hygiene_mode_check"),
)

merge = sa.Table(
    "merge",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="merge_scope_fkey"), nullable=False),
    sa.Column("commit_sha", sa.Text, nullable=False),
    sa.Column("node_id", sa.Text),
    sa.Column("message", sa.Text, nullable=False, server_default=sa.text("''::text")),
    sa.Column("paths", pg.ARRAY(sa.Text), nullable=False, server_default=_empty_paths),
    sa.Column("merged_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("processed", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("scope", "commit_sha", name="merge_scope_commit_sha_key"),
    sa.Index("merge_unprocessed_idx", "id", postgresql_where=sa.text("NOT processed")),
)

finding = sa.Table(
    "finding",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="finding_scope_fkey"), nullable=False),
    sa.Column("finding_key", sa.Text),
    sa.Column("kind", sa.Text, nullable=False, server_default=sa.text("'review'::text")),
    sa.Column("severity", sa.Text, nullable=False, server_default=sa.text("'medium'::text")),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("description", sa.Text),
    sa.Column("paths", pg.ARRAY(sa.Text), nullable=False, server_default=_empty_paths),
    sa.Column("source", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("superseded_at", sa.DateTime(timezone=True)),
    sa.Column("superseded_by", sa.Text),
    sa.Column(
        "superseded_by_merge_id",
        sa.BigInteger,
        sa.ForeignKey("ledger.merge.id", name="finding_superseded_by_merge_id_fkey"),
    ),
    sa.Column("supersede_rule", sa.Text),
    sa.UniqueConstraint("scope", "finding_key", name="finding_scope_finding_key_key"),
    sa.CheckConstraint(
        "severity IN ('critical', 'high', 'medium', 'low', 'info')", name="finding_severity_check"
    ),
    sa.Index("finding_scope_active_idx", "scope", "id", postgresql_where=sa.text("superseded_at IS NULL")),
    sa.Index(
        "finding_active_paths_idx",
        sa.func.ledger._scoped_paths(sa.column("scope"), sa.column("paths")),
        postgresql_using="gin",
        postgresql_with={"fastupdate": "off"},
        postgresql_where=sa.text("superseded_at IS NULL"),
    ),
)

supersession = sa.Table(
    "supersession",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="supersession_scope_fkey"), nullable=False),
    sa.Column("finding_id", sa.BigInteger, sa.ForeignKey("ledger.finding.id", name="supersession_finding_id_fkey")),
    sa.Column("merge_id", sa.BigInteger, sa.ForeignKey("ledger.merge.id", name="supersession_merge_id_fkey")),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("rule", sa.Text),
    sa.Column("evidence", sa.Text),
    sa.Column("detail", pg.JSONB),
    sa.Column("actor", sa.Text),
    sa.Column("reason", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Index("supersession_finding_idx", "finding_id", "id"),
    sa.Index("supersession_merge_idx", "merge_id", "id"),
    sa.Index("supersession_scope_idx", "scope", "id"),
)

active_finding = sa.Table(
    "active_finding",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True),
    sa.Column("scope", sa.Text),
    sa.Column("finding_key", sa.Text),
    sa.Column("kind", sa.Text),
    sa.Column("severity", sa.Text),
    sa.Column("title", sa.Text),
    sa.Column("description", sa.Text),
    sa.Column("paths", pg.ARRAY(sa.Text)),
    sa.Column("source", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True)),
    info={"view": True},
)

#: The tables (not views) the metadata describes, by name.
TABLES = {t.name: t for t in metadata.sorted_tables if not t.info.get("view")}
#: The views described as tables, by name.
VIEWS = {t.name: t for t in metadata.sorted_tables if t.info.get("view")}


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """alembic ``include_name`` hook: reflect only schema ``ledger``, and not
    the migrations' version table."""
    if type_ == "schema":
        return name == SCHEMA
    if type_ == "table":
        return name != VERSION_TABLE
    return True


def include_object(obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
    """alembic ``include_object`` hook: leave views (described as tables
    here, absent from reflection) out of autogenerate."""
    if type_ == "table" and not reflected and obj.info.get("view"):
        return False
    return True


#: Options for alembic's ``MigrationContext.configure`` / ``context.configure``
#: that make autogenerate compare exactly the ledger's tables with this metadata.
AUTOGENERATE_OPTIONS: dict[str, Any] = {
    "include_schemas": True,
    "include_name": include_name,
    "include_object": include_object,
    "compare_type": True,
    "compare_server_default": True,
    # Comments are documentation owned by the revisions (and pinned by the
    # schema snapshot, tests/schema/head.sql), not by this metadata; CHECK
    # constraints are compared by name.
    "autogenerate_plugins": [
        "alembic.autogenerate.*",
        "~alembic.autogenerate.comments",
        "alembic.ext.checkconstraint_byname",
    ],
}
