"""SQLAlchemy Core metadata of the ledger's public tables (schema ``ledger``).

For Python services that query the ledger with SQLAlchemy::

    import sqlalchemy as sa
    from findings_ledger.schema import active_finding, finding

    stmt = sa.select(finding.c.id, finding.c.title).where(finding.c.superseded_at.is_(None))

``sql/`` (built by the migrations in ``migrations/versions``) is the
truth; this module describes it. ``tests/sql/test_schema_metadata.py`` fails, naming
every difference, when the migrated schema and this metadata disagree, and
alembic's autogenerate (``test_model_definitions_match_ddl``) compares the
same metadata through ``migrations/env.py``.

Writing through these tables is writing through the ledger's triggers: an
``insert(finding)`` is validated and normalised exactly like any other
INSERT. The columns the triggers derive (``superseded_*``, ``processed``)
are not for services to write.

Tables: ``scope``, ``finding``, ``merge``, ``supersession`` (findings, merges
and their audit), ``finding_path`` (the paths of the active findings, kept by
the triggers; not readable by the ledger roles), ``issue``, ``agent_task``, ``poisoned_failure_reason``,
``retired_session`` (task claims) and ``injection`` (the lifecycle's prompt
injections). Claims and snapshots are written by the stored functions
(``ledger.claim_task`` ...), not by hand.

``active_finding`` and ``finding_lifecycle`` are the views of those names,
described as tables (``info={"view": True}``) so they can be selected from;
they are excluded from autogenerate by :func:`include_object`.
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
    # the scope's message-matching policy
    sa.Column(
        "enabled_rules",
        pg.ARRAY(sa.Text),
        nullable=False,
        server_default=sa.text("'{path,key,slug,keyword,title}'::text[]"),
    ),
    sa.Column("path_supersede_kinds", pg.ARRAY(sa.Text), nullable=False, server_default=sa.text("'{drift}'::text[]")),
    sa.Column("slug_mention_resolves", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("default_branch", sa.Text),
    sa.Column("line_context", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("touch_modes", pg.JSONB, nullable=False, server_default=sa.text("'{}'::jsonb")),
    sa.CheckConstraint("hygiene_mode IN ('on', 'dry', 'off')", name="scope_hygiene_mode_check"),
    sa.CheckConstraint("line_context BETWEEN 0 AND 1000", name="scope_line_context_check"),
    sa.CheckConstraint("jsonb_typeof(touch_modes) = 'object'", name="scope_touch_modes_check"),
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
    sa.Column("branch", sa.Text),  # the branch it landed on (None: unknown)
    # what kind of change each path was, and the changed lines (None: unknown)
    sa.Column("added", pg.ARRAY(sa.Text)),
    sa.Column("deleted", pg.ARRAY(sa.Text)),
    sa.Column("hunks", pg.JSONB),
    sa.UniqueConstraint("scope", "commit_sha", name="merge_scope_commit_sha_key"),
    sa.CheckConstraint("jsonb_typeof(hunks) = 'object'", name="merge_hunks_check"),
    sa.Index("merge_unprocessed_idx", "id", postgresql_where=sa.text("NOT processed")),
    # (scope COLLATE "C", commit_sha COLLATE "C") in the database: byte order, for the
    # shas an abbreviation stands for (alembic does not compare an index column's collation)
    sa.Index("merge_scope_commit_sha_bytes_idx", "scope", "commit_sha"),
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
    # the lifecycle: dismissal, re-reports, reopens
    sa.Column("dismissed_at", sa.DateTime(timezone=True)),
    sa.Column("dismissed_by", sa.Text),
    sa.Column("resolution", sa.Text),
    sa.Column("dismissal_reason", sa.Text),
    sa.Column("report_count", sa.Integer, nullable=False, server_default=sa.text("1")),
    sa.Column("last_reported_at", sa.DateTime(timezone=True)),
    sa.Column("reopen_count", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("review_run", sa.Text),
    # evidence a merge message can name
    sa.Column("slug", sa.Text),
    sa.Column("strong_keywords", pg.ARRAY(sa.Text), nullable=False, server_default=_empty_paths),
    sa.Column("tags", pg.ARRAY(sa.Text), nullable=False, server_default=_empty_paths),
    # what the decisions read: causality, change kind, line anchors; the prompt's task group
    sa.Column("observed_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("expects", sa.Text, nullable=False, server_default=sa.text("'change'::text")),
    sa.Column("anchors", pg.JSONB),
    sa.Column("task_group", sa.Text),
    # the finding's check on a merge's tree, and how precisely observed_at is known
    sa.Column("resolved_when", pg.JSONB),
    sa.Column("observed_at_precision", sa.Text, nullable=False, server_default=sa.text("'instant'::text")),
    sa.UniqueConstraint("scope", "finding_key", name="finding_scope_finding_key_key"),
    sa.CheckConstraint(
        "severity IN ('critical', 'high', 'medium', 'low', 'info')", name="finding_severity_check"
    ),
    sa.CheckConstraint(
        "resolution IN ('accepted', 'false_positive', 'wont_fix', 'duplicate')",
        name="finding_resolution_check",
    ),
    sa.CheckConstraint(
        "dismissed_at IS NULL OR (resolution IS NOT NULL AND superseded_at IS NOT NULL)",
        name="finding_dismissal_check",
    ),
    sa.CheckConstraint("expects IN ('change', 'present', 'absent')", name="finding_expects_check"),
    sa.CheckConstraint("jsonb_typeof(anchors) = 'object'", name="finding_anchors_check"),
    sa.CheckConstraint("jsonb_typeof(resolved_when) = 'object'", name="finding_resolved_when_check"),
    sa.CheckConstraint("observed_at_precision IN ('instant', 'day')", name="finding_observed_at_precision_check"),
    sa.Index("finding_scope_active_idx", "scope", "id", postgresql_where=sa.text("superseded_at IS NULL")),
    # expression indexes over active findings (sql/<topic>/indexes/)
    sa.Index(
        "finding_active_evidence_idx",
        sa.func.ledger._evidence_keys(
            sa.column("scope"), sa.column("finding_key"), sa.column("slug"), sa.column("strong_keywords"),
            sa.column("title"),
        ),
        postgresql_using="gin",
        postgresql_with={"fastupdate": "off"},
        postgresql_where=sa.text("superseded_at IS NULL"),
    ),
    # the prompt order of the active findings (ledger.read_prompt_findings)
    sa.Index(
        "finding_prompt_order_idx",
        "scope",
        # as pg_get_indexdef renders it (line breaks included: the comparison ignores only spaces)
        sa.text("(\nCASE severity\n    WHEN 'critical'::text THEN 0\n    WHEN 'high'::text THEN 1\n"
                "    WHEN 'medium'::text THEN 2\n    WHEN 'low'::text THEN 3\n    WHEN 'info'::text THEN 4\n"
                "    ELSE 5\nEND)"),
        sa.text("COALESCE(last_reported_at, created_at) DESC"),
        sa.text("id DESC"),
        postgresql_where=sa.text("superseded_at IS NULL"),
    ),
    sa.Index("finding_scope_slug_key", "scope", "slug", unique=True),
)

#: The paths of the active findings, the path rule's index: derived, written only by the
#: finding triggers (no role may read or write it; described here so the schema comparison sees it).
finding_path = sa.Table(
    "finding_path",
    metadata,
    sa.Column("scope", sa.Text, primary_key=True),
    sa.Column("path", sa.Text, primary_key=True),
    sa.Column("finding_id", sa.BigInteger, primary_key=True),
)

#: Each scope's active count and prompt characters as delta rows (sums per scope): derived,
#: written only by the finding triggers and reconcile; readers may select it.
scope_active_total = sa.Table(
    "scope_active_total",
    metadata,
    sa.Column("scope", sa.Text, primary_key=True),
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("findings", sa.BigInteger, nullable=False),
    sa.Column("chars", sa.BigInteger, nullable=False),
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
    sa.Index("supersession_anchor_moves_idx", "scope", "id",
             postgresql_where=sa.text("finding_id IS NULL AND action = 'anchor_moved'")),
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

# --- task claims: issues, agent tasks and their claim snapshots -------------

issue = sa.Table(
    "issue",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="issue_scope_fkey"), nullable=False),
    sa.Column("title", sa.Text, nullable=False),
    sa.Column("description", sa.Text),
    sa.Column("status", sa.Text, nullable=False, server_default=sa.text("'todo'::text")),
    sa.Column("assignee_type", sa.Text),
    sa.Column("assignee_id", sa.Text),
    sa.Column("priority", sa.Text, nullable=False, server_default=sa.text("'none'::text")),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.CheckConstraint(
        "status IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'blocked', 'cancelled')",
        name="issue_status_check",
    ),
    sa.CheckConstraint("priority IN ('urgent', 'high', 'medium', 'low', 'none')", name="issue_priority_check"),
    sa.CheckConstraint(
        "(assignee_type IS NULL) = (assignee_id IS NULL)"
        " AND (assignee_type IS NULL OR assignee_type IN ('member', 'agent'))",
        name="issue_assignee_check",
    ),
    sa.Index("issue_scope_idx", "scope", "id"),
)

agent_task = sa.Table(
    "agent_task",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("issue_id", sa.BigInteger, sa.ForeignKey("ledger.issue.id", name="agent_task_issue_id_fkey"),
              nullable=False),
    sa.Column("agent_id", sa.Text, nullable=False),
    sa.Column("runtime_id", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False, server_default=sa.text("'queued'::text")),
    sa.Column("session_id", sa.Text),
    sa.Column(
        "rerun_of_task_id",
        sa.BigInteger,
        sa.ForeignKey("ledger.agent_task.id", name="agent_task_rerun_of_task_id_fkey"),
    ),
    sa.Column("force_fresh_session", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("failure_reason", sa.Text),
    sa.Column("dispatch_count", sa.Integer, nullable=False, server_default=sa.text("0")),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("dispatched_at", sa.DateTime(timezone=True)),
    sa.Column("started_at", sa.DateTime(timezone=True)),
    sa.Column("completed_at", sa.DateTime(timezone=True)),
    # Written only by ledger.claim_task: {"v":1,"title_sha256":...,"description_sha256":...}
    sa.Column("issue_snapshot", pg.JSONB),
    # Written only by ledger.claim_task (p_lease) and ledger.renew_task_lease; NULL: no lease
    sa.Column("lease_expires_at", sa.DateTime(timezone=True)),
    # The issue's scope, set by the _100_prepare trigger (another scope sent: LD003)
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="agent_task_scope_fkey"), nullable=False),
    sa.CheckConstraint(
        "status IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled')",
        name="agent_task_status_check",
    ),
    sa.CheckConstraint("rerun_of_task_id <> id", name="agent_task_rerun_check"),
    sa.Index(
        "agent_task_claim_idx", "runtime_id", "created_at", "id", postgresql_where=sa.text("status = 'queued'::text")
    ),
    sa.Index("agent_task_anchor_idx", "issue_id", "agent_id", "runtime_id"),
    sa.Index("agent_task_scope_idx", "scope", "id"),
    sa.Index("agent_task_rerun_idx", "rerun_of_task_id", postgresql_where=sa.text("rerun_of_task_id IS NOT NULL")),
    sa.Index(
        "agent_task_lease_idx", "runtime_id", "lease_expires_at", "id",
        postgresql_where=sa.text("status = ANY (ARRAY['dispatched'::text, 'running'::text]) "
                                 "AND lease_expires_at IS NOT NULL"),
    ),
)

poisoned_failure_reason = sa.Table(
    "poisoned_failure_reason",
    metadata,
    sa.Column("failure_reason", sa.Text, primary_key=True),
    sa.Column("note", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
)

retired_session = sa.Table(
    "retired_session",
    metadata,
    sa.Column("session_id", sa.Text, primary_key=True),
    sa.Column("reason", sa.Text),
    sa.Column("retired_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
)

# --- checks and touch modes: file-state requests, the recheck queue ---------

file_state_request = sa.Table(
    "file_state_request",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="file_state_request_scope_fkey"),
              nullable=False),
    sa.Column("merge_id", sa.BigInteger, sa.ForeignKey("ledger.merge.id", name="file_state_request_merge_id_fkey"),
              nullable=False),
    sa.Column("finding_id", sa.BigInteger,
              sa.ForeignKey("ledger.finding.id", name="file_state_request_finding_id_fkey"), nullable=False),
    sa.Column("paths", pg.ARRAY(sa.Text), nullable=False),
    sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("states", pg.JSONB),
    sa.Column("answered_at", sa.DateTime(timezone=True)),
    sa.Column("outcome", sa.Text),
    sa.Column("part", sa.Text),
    sa.UniqueConstraint("merge_id", "finding_id", name="file_state_request_merge_finding_key"),
    sa.CheckConstraint("outcome IN ('held', 'failed', 'moot', 'overruled', 'error')",
                       name="file_state_request_outcome_check"),
    sa.CheckConstraint("jsonb_typeof(states) = 'object'", name="file_state_request_states_check"),
    sa.Index("file_state_request_finding_idx", "finding_id", "merge_id"),
    sa.Index("file_state_request_pending_idx", "scope", "merge_id", postgresql_where=sa.text("answered_at IS NULL")),
)

recheck_request = sa.Table(
    "recheck_request",
    metadata,
    sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="recheck_request_scope_fkey"),
              nullable=False),
    sa.Column("finding_id", sa.BigInteger, sa.ForeignKey("ledger.finding.id", name="recheck_request_finding_id_fkey"),
              nullable=False),
    sa.Column("merge_id", sa.BigInteger, sa.ForeignKey("ledger.merge.id", name="recheck_request_merge_id_fkey"),
              nullable=False),
    sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    sa.Column("verifier", sa.Text),
    sa.Column("lease_until", sa.DateTime(timezone=True)),
    sa.Column("answered_at", sa.DateTime(timezone=True)),
    sa.Column("resolved", sa.Boolean),
    sa.Column("evidence", sa.Text),
    sa.Column("outcome", sa.Text),
    sa.UniqueConstraint("finding_id", "merge_id", name="recheck_request_finding_merge_key"),
    sa.CheckConstraint("(answered_at IS NULL) = (resolved IS NULL)", name="recheck_request_answer_check"),
    sa.CheckConstraint("outcome IN ('resolved', 'kept', 'moot', 'overruled')", name="recheck_request_outcome_check"),
    sa.Index("recheck_request_open_idx", "scope", "id", postgresql_where=sa.text("answered_at IS NULL")),
)

# --- the lifecycle: prompt injections and the lifecycle view ---------------

injection = sa.Table(
    "injection",
    metadata,
    sa.Column("session_id", sa.Text, primary_key=True),
    sa.Column("finding_id", sa.BigInteger, sa.ForeignKey("ledger.finding.id", name="injection_finding_id_fkey"),
              primary_key=True),
    sa.Column("injected_at", sa.DateTime(timezone=True), nullable=False, server_default=_now),
    # The finding's scope, set by the _100_prepare trigger (another scope sent: LD003)
    sa.Column("scope", sa.Text, sa.ForeignKey("ledger.scope.scope", name="injection_scope_fkey"), nullable=False),
    sa.Index("injection_finding_idx", "finding_id", "session_id"),
    sa.Index("injection_scope_idx", "scope", "session_id"),
)

finding_lifecycle = sa.Table(
    "finding_lifecycle",
    metadata,
    sa.Column("id", sa.BigInteger, primary_key=True),
    sa.Column("scope", sa.Text),
    sa.Column("finding_key", sa.Text),
    sa.Column("kind", sa.Text),
    sa.Column("severity", sa.Text),
    sa.Column("title", sa.Text),
    sa.Column("state", sa.Text),  # 'active', 'superseded' or 'dismissed' (ledger._finding_state)
    sa.Column("resolution", sa.Text),
    sa.Column("dismissed_at", sa.DateTime(timezone=True)),
    sa.Column("dismissed_by", sa.Text),
    sa.Column("dismissal_reason", sa.Text),
    sa.Column("superseded_at", sa.DateTime(timezone=True)),
    sa.Column("superseded_by", sa.Text),
    sa.Column("superseded_by_merge_id", sa.BigInteger),
    sa.Column("supersede_rule", sa.Text),
    sa.Column("report_count", sa.Integer),
    sa.Column("last_reported_at", sa.DateTime(timezone=True)),
    sa.Column("reopen_count", sa.Integer),
    sa.Column("review_run", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True)),
    info={"view": True},
)

pending_file_state = sa.Table(
    "pending_file_state",
    metadata,
    sa.Column("merge_id", sa.BigInteger),
    sa.Column("commit_sha", sa.Text),
    sa.Column("scope", sa.Text),
    sa.Column("finding_id", sa.BigInteger),
    sa.Column("paths", pg.ARRAY(sa.Text)),
    sa.Column("requested_at", sa.DateTime(timezone=True)),
    sa.Column("request_id", sa.BigInteger, primary_key=True),
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
    # Comments are documentation owned by sql/ (and compared by the drift
    # check, tests/migrations/test_schema_drift.py), not by this metadata; CHECK
    # constraints are compared by name.
    "autogenerate_plugins": [
        "alembic.autogenerate.*",
        "~alembic.autogenerate.comments",
        "alembic.ext.checkconstraint_byname",
    ],
}
