"""The SQL statements the ``findings_ledger`` package sends to a ledger
database, in one auditable module: the API's (:mod:`~findings_ledger.api`,
:mod:`~findings_ledger.claims`, :mod:`~findings_ledger.findings`,
:mod:`~findings_ledger.decisions`, :mod:`~findings_ledger.importers`,
:mod:`~findings_ledger.access`), the CLI's (creating its default
database) and the demo's report queries. Four statements live where they
are used: the two reads of ``ledger.alembic_version`` in
:mod:`~findings_ledger.api` (the schema version check) and the ``CREATE
DATABASE`` / ``DROP DATABASE`` of ``findings-ledger evaluate``'s scratch
database (:mod:`findings_ledger.cli.evaluate`).

Each API statement calls one stored function with named arguments; nothing
is built with f-strings (the one identifier, a database name, goes through
:class:`psycopg.sql.Identifier`). Column lists are explicit so that adding a
column to a table never breaks the dataclass a statement fills
(:mod:`findings_ledger.models`).

Not here: the migrations' DDL (``migrations/``, run through
:mod:`findings_ledger.migration_ops`) and the test tooling's maintenance
statements (:mod:`findings_ledger.testing`: creating and dropping test
databases, ``pg_dump``).
"""

from psycopg import sql

# --- findings, merges, the audit, hygiene mode ---------------------------------

FINDING_COLUMNS = (
    "id, scope, finding_key, kind, severity, title, description, paths, source, created_at, "
    "superseded_at, superseded_by, superseded_by_merge_id, supersede_rule, observed_at, expects, anchors, task_group, "
    "resolved_when, observed_at_precision"
)
ACTIVE_COLUMNS = "id, scope, finding_key, kind, severity, title, description, paths, source, created_at"
AUDIT_COLUMNS = (
    "id, scope, finding_id, merge_id, action, rule, evidence, detail, actor, reason, created_at, commit_sha, subject"
)

ADD_FINDING = (
    "SELECT " + FINDING_COLUMNS + " FROM ledger.add_finding("
    "p_scope => %(scope)s, p_title => %(title)s, p_description => %(description)s, "
    "p_paths => %(paths)s, p_kind => %(kind)s, p_severity => %(severity)s, "
    "p_finding_key => %(finding_key)s, p_source => %(source)s, p_observed_at => %(observed_at)s, "
    "p_expects => %(expects)s, p_task_group => %(task_group)s, p_resolved_when => %(resolved_when)s, "
    "p_observed_at_precision => %(observed_at_precision)s)"
)

RECORD_FILE_STATES = (
    "SELECT finding_id, outcome, part FROM ledger.record_file_states(p_merge_id => %(merge_id)s, "
    "p_states => %(states)s)"
)

#: the commits a scope holds (replay-git resuming after a reconnect)
RECORDED_SHAS = "SELECT commit_sha FROM ledger.merge WHERE scope = %(scope)s"

PENDING_FILE_STATES = (
    "SELECT merge_id, commit_sha, scope, finding_id, paths, requested_at, request_id "
    "FROM ledger.pending_file_states(p_scope => %(scope)s::text)"
)

RECHECK_COLUMNS = (
    "id, scope, finding_id, merge_id, requested_at, verifier, lease_until, answered_at, resolved, evidence, outcome"
)

CLAIMED_RECHECK_COLUMNS = (
    "id, scope, finding_id, merge_id, requested_at, verifier, lease_until, title, description, paths, kind, "
    "severity, commit_sha, subject"
)

CLAIM_RECHECKS = (
    "SELECT " + CLAIMED_RECHECK_COLUMNS + " FROM ledger.claim_rechecks(p_scope => %(scope)s, "
    "p_verifier => %(verifier)s, "
    "p_max => %(max)s, p_lease => %(lease)s)"
)

ANSWER_RECHECK = (
    "SELECT " + RECHECK_COLUMNS + " FROM ledger.answer_recheck(p_id => %(id)s, p_resolved => %(resolved)s, "
    "p_evidence => %(evidence)s, p_verifier => %(verifier)s)"
)

RECORD_MERGE = (
    "SELECT merge_id, recorded, decisions FROM ledger.record_merge("
    "p_scope => %(scope)s, p_commit_sha => %(commit_sha)s, p_paths => %(paths)s, "
    "p_message => %(message)s, p_node_id => %(node_id)s, p_merged_at => %(merged_at)s, "
    "p_branch => %(branch)s, p_added => %(added)s, p_deleted => %(deleted)s, p_hunks => %(hunks)s)"
)

RECORD_MERGES = (
    "SELECT ord, merge_id, recorded, decisions FROM ledger.record_merges(p_scope => %(scope)s, p_merges => %(merges)s)"
)

ACTIVE_FINDINGS = "SELECT " + ACTIVE_COLUMNS + " FROM ledger.active_findings(p_scope => %(scope)s)"

READ_AUDIT = (
    "SELECT " + AUDIT_COLUMNS + " FROM ledger.read_audit("
    "p_scope => %(scope)s, p_finding_id => %(finding_id)s, p_merge_id => %(merge_id)s)"
)

SET_HYGIENE_MODE = (
    "SELECT scope, hygiene_mode FROM ledger.set_hygiene_mode("
    "p_scope => %(scope)s, p_mode => %(mode)s, p_create => %(create)s)"
)

# --- security and reliability ------------------------------------------------

RECONCILE = "SELECT merge_id, decisions FROM ledger.reconcile(p_scope => %(scope)s)"

SET_SCOPES = "SELECT set_config('ledger.scopes', %(scopes)s, %(is_local)s)"

ENABLE_SCOPE_RLS = "SELECT t::text FROM ledger.enable_scope_rls() AS t"

DISABLE_SCOPE_RLS = "SELECT t::text FROM ledger.disable_scope_rls() AS t"

# --- message matching: importers and policy ---------------------------------

IMPORT_FINDING = (
    "SELECT id, finding_key, slug, status FROM ledger.import_finding("
    "p_scope => %(scope)s, p_title => %(title)s, p_description => %(description)s, "
    "p_paths => %(paths)s, p_kind => %(kind)s, p_severity => %(severity)s, "
    "p_finding_key => %(finding_key)s, p_source => %(source)s, p_slug => %(slug)s, "
    "p_strong_keywords => %(strong_keywords)s, p_tags => %(tags)s, p_observed_at => %(observed_at)s, "
    "p_expects => %(expects)s, p_task_group => %(task_group)s, p_resolved_when => %(resolved_when)s::jsonb, "
    "p_observed_at_precision => %(observed_at_precision)s)"
)

WORKSPACE_SCOPE = "SELECT ledger.workspace_scope(p_directory => %(directory)s)"

VALIDATE_CHECK = "SELECT ledger.validate_check(p_check => %(check)s, p_field => %(field)s)"

SET_MATCH_POLICY = (
    "SELECT scope, hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch, "
    "line_context, touch_modes "
    "FROM ledger.set_match_policy(p_scope => %(scope)s, p_enabled_rules => %(enabled_rules)s, "
    "p_path_supersede_kinds => %(path_supersede_kinds)s, "
    "p_slug_mention_resolves => %(slug_mention_resolves)s, p_default_branch => %(default_branch)s, "
    "p_line_context => %(line_context)s, p_create => %(create)s, p_touch => %(touch)s, "
    "p_touch_kind => %(touch_kind)s)"
)

# --- task claims --------------------------------------------------------------

ISSUE_COLUMNS = (
    "id, scope, title, description, status, assignee_type, assignee_id, priority, created_at, updated_at"
)
TASK_COLUMNS = (
    "id, issue_id, agent_id, runtime_id, status, session_id, rerun_of_task_id, force_fresh_session, "
    "failure_reason, dispatch_count, created_at, dispatched_at, started_at, completed_at, issue_snapshot"
)
CLAIM_COLUMNS = (
    "task_id, issue_id, agent_id, runtime_id, dispatch_count, dispatched_at, rerun_of_task_id, "
    "force_fresh_session, resume_session_id, resumed_task_id, anchor_task_id, "
    "issue_status, issue_assignee_type, issue_assignee_id, issue_priority, issue_state_delta_known, "
    "issue_changed_fields, delta_basis, lease_expires_at, reclaimed_task_id"
)

ADD_ISSUE = (
    "SELECT " + ISSUE_COLUMNS + " FROM ledger.add_issue("
    "p_scope => %(scope)s, p_title => %(title)s, p_description => %(description)s, "
    "p_status => %(status)s, p_priority => %(priority)s, "
    "p_assignee_type => %(assignee_type)s, p_assignee_id => %(assignee_id)s)"
)
ENQUEUE_TASK = (
    "SELECT " + TASK_COLUMNS + " FROM ledger.enqueue_task("
    "p_issue_id => %(issue_id)s, p_agent_id => %(agent_id)s, p_runtime_id => %(runtime_id)s, "
    "p_rerun_of_task_id => %(rerun_of_task_id)s, p_force_fresh_session => %(force_fresh_session)s)"
)
CLAIM_TASK = (
    "SELECT " + CLAIM_COLUMNS + " FROM ledger.claim_task(p_runtime_id => %(runtime_id)s, p_agent_id => %(agent_id)s, "
    "p_lease => %(lease)s)"
)
RENEW_TASK_LEASE = (
    "SELECT ledger.renew_task_lease(p_task_id => %(task_id)s, p_runtime_id => %(runtime_id)s, p_lease => %(lease)s)"
)
START_TASK = (
    "SELECT " + TASK_COLUMNS + " FROM ledger.start_task(p_task_id => %(task_id)s, p_session_id => %(session_id)s)"
)
COMPLETE_TASK = (
    "SELECT " + TASK_COLUMNS + " FROM ledger.complete_task(p_task_id => %(task_id)s, p_session_id => %(session_id)s)"
)
FAIL_TASK = (
    "SELECT " + TASK_COLUMNS + " FROM ledger.fail_task("
    "p_task_id => %(task_id)s, p_failure_reason => %(failure_reason)s, p_session_id => %(session_id)s)"
)
CANCEL_TASK = "SELECT " + TASK_COLUMNS + " FROM ledger.cancel_task(p_task_id => %(task_id)s, p_reason => %(reason)s)"
REQUEUE_TASK = "SELECT " + TASK_COLUMNS + " FROM ledger.requeue_task(p_task_id => %(task_id)s)"
ISSUE_SNAPSHOT = (
    "SELECT ledger.issue_snapshot(p_title => %(title)s, p_description => %(description)s, p_version => %(version)s)"
)

# --- finding lifecycle --------------------------------------------------------

#: The channel every supersede, reopen, dismiss and restore is notified on.
FINDING_CHANNEL = "ledger_finding"

LIFECYCLE_COLUMNS = (
    "id, scope, finding_key, kind, severity, title, state, resolution, dismissed_at, dismissed_by, "
    "dismissal_reason, superseded_at, superseded_by, superseded_by_merge_id, supersede_rule, "
    "report_count, last_reported_at, reopen_count, review_run, created_at"
)

REPORT_FINDING = (
    "SELECT finding_id, outcome, state, report_count, reopen_count FROM ledger.report_finding("
    "p_scope => %(scope)s, p_finding_key => %(finding_key)s, p_title => %(title)s, "
    "p_description => %(description)s, p_paths => %(paths)s, p_kind => %(kind)s, "
    "p_severity => %(severity)s, p_source => %(source)s, p_review_run => %(review_run)s, "
    "p_observed_at => %(observed_at)s, p_expects => %(expects)s, p_task_group => %(task_group)s, "
    "p_resolved_when => %(resolved_when)s, p_observed_at_precision => %(observed_at_precision)s)"
)

REPLACE_FINDINGS = (
    "SELECT added, kept, reopened, still_dismissed, superseded, would_supersede FROM ledger.replace_findings("
    "p_scope => %(scope)s, p_kind => %(kind)s, p_review_run => %(review_run)s, "
    "p_findings => %(findings)s, p_actor => %(actor)s)"
)

DISMISS_FINDING = (
    "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.dismiss_finding("
    "p_finding_id => %(finding_id)s, p_resolution => %(resolution)s, p_actor => %(actor)s, p_reason => %(reason)s)"
)

RESTORE_FINDING = (
    "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.restore_finding("
    "p_finding_id => %(finding_id)s, p_actor => %(actor)s, p_reason => %(reason)s)"
)

READ_FINDING = "SELECT " + LIFECYCLE_COLUMNS + " FROM ledger.read_finding(p_finding_id => %(finding_id)s)"

READ_HISTORY = (
    "SELECT at, event, rule, actor, reason, evidence, merge_id, commit_sha, detail, audit_id "
    "FROM ledger.read_history(p_finding_id => %(finding_id)s)"
)

RECORD_INJECTION = (
    "SELECT recorded, already_recorded FROM ledger.record_injection("
    "p_session_id => %(session_id)s, p_finding_ids => %(finding_ids)s)"
)

READ_INJECTIONS = (
    "SELECT session_id, finding_id, injected_at, scope, kind, severity, title, state "
    "FROM ledger.read_injections(p_session_id => %(session_id)s, p_finding_id => %(finding_id)s)"
)

MEASURE_CONVERGENCE = (
    "SELECT session_id, shown, still_active, superseded, dismissed, active_share "
    "FROM ledger.measure_convergence(p_session_id => %(session_id)s)"
)

READ_PROMPT_FINDINGS = (
    "SELECT findings, included_count, included_chars, omitted_count, omitted_chars "
    "FROM ledger.read_prompt_findings(p_scope => %(scope)s, p_kinds => %(kinds)s, "
    "p_max_age => %(max_age)s, p_max_chars => %(max_chars)s, "
    "p_current_group => %(current_group)s, p_max_groups => %(max_groups)s, p_max_touches => %(max_touches)s)"
)

READ_PROMPT_TEXT = (
    "SELECT prompt, included_count, included_chars, omitted_count, omitted_chars "
    "FROM ledger.read_prompt_text(p_scope => %(scope)s, p_max_chars => %(max_chars)s, p_kinds => %(kinds)s, "
    "p_max_touches => %(max_touches)s, p_max_age => %(max_age)s, p_current_group => %(current_group)s, "
    "p_max_groups => %(max_groups)s)"
)

#: The verdict's audit row, with the judged merge's commit and subject from its detail.
VERIFY_FINDING = (
    "SELECT a.id, a.scope, a.finding_id, a.merge_id, a.action, a.rule, a.evidence, a.detail, a.actor, a.reason, "
    "a.created_at, a.detail ->> 'commit_sha' AS commit_sha, a.detail ->> 'subject' AS subject "
    "FROM ledger.verify_finding(p_finding_id => %(finding_id)s, p_verdict => %(verdict)s, "
    "p_evidence => %(evidence)s, p_verifier => %(verifier)s) AS a"
)

LISTEN_FINDINGS = "LISTEN " + FINDING_CHANNEL

#: Re-read the audit ids received on the channel (a payload is only an id).
READ_FINDING_EVENTS = (
    "SELECT audit_id, finding_id, scope, action, rule, merge_id, actor "
    "FROM ledger.read_finding_events(p_audit_ids => %(audit_ids)s)"
)

# --- the CLI: its default database on the throwaway cluster --------------------

DATABASE_EXISTS = "SELECT 1 FROM pg_database WHERE datname = %(name)s"

#: Format with ``name=sql.Identifier(...)``.
CREATE_DATABASE = sql.SQL("CREATE DATABASE {name}")

# --- the demo's report (findings_ledger.demo), read back from the database -----

# What one prompt carries: every drift finding of the spec (the drift-review scenario's system,
# without the ledger) and the active ones (ledger.active_findings, with it).
DEMO_PROMPT_FIGURES = """
SELECT w.findings AS all_findings, w.chars AS all_chars, a.findings AS active_findings, a.chars AS active_chars
  FROM (SELECT count(*) AS findings,
               coalesce(sum(length(f.title) + coalesce(1 + length(f.description), 0)), 0) AS chars
          FROM ledger.finding f
         WHERE f.scope = %(scope)s AND f.kind = 'drift') AS w,
       (SELECT count(*) AS findings,
               coalesce(sum(length(f.title) + coalesce(1 + length(f.description), 0)), 0) AS chars
          FROM ledger.active_findings(p_scope => %(scope)s) AS f
         WHERE f.kind = 'drift') AS a
"""

# Why a merge retired what it retired: its audit rows, with the finding and the merge.
DEMO_MERGE_DECISIONS = """
SELECT a.action, a.rule, a.evidence, f.finding_key, f.title, a.detail ->> 'finding_path' AS finding_path,
       a.evidence AS touched_path, m.commit_sha, m.node_id, f.superseded_by
  FROM ledger.read_audit(p_scope => %(scope)s, p_merge_id => %(merge_id)s) AS a
  JOIN ledger.finding f ON f.id = a.finding_id
  JOIN ledger.merge m ON m.id = a.merge_id
 ORDER BY a.id, a.finding_id
"""

# The drift review as stored (paths normalised by the database).
DEMO_REVIEW_FINDINGS = """
SELECT f.finding_key, f.severity, f.title, f.paths,
       length(f.title) + coalesce(1 + length(f.description), 0) AS chars, f.resolved_when
  FROM ledger.finding f
 WHERE f.scope = %(scope)s AND f.kind = 'drift'
 ORDER BY f.id
"""

DEMO_SCOPE_IS_EMPTY = """
SELECT NOT EXISTS (SELECT 1 FROM ledger.finding WHERE scope = %(scope)s)
   AND NOT EXISTS (SELECT 1 FROM ledger.merge WHERE scope = %(scope)s)
"""

# --- evaluate: replaying a labelled corpus (findings_ledger.evaluate) ------------

EVALUATE_COPY_MERGES = (
    "COPY ledger.merge (scope, commit_sha, message, paths, merged_at, added, deleted, hunks) FROM STDIN"
)

EVALUATE_INSERT_FINDING = (
    "INSERT INTO ledger.finding (scope, title, description, kind, paths, finding_key, slug, strong_keywords, "
    "observed_at, expects, source) VALUES (%(scope)s, %(title)s, %(description)s, %(kind)s, %(paths)s, "
    "%(finding_key)s, %(slug)s, %(strong_keywords)s, %(observed_at)s, %(expects)s, %(source)s) RETURNING id"
)

EVALUATE_ANY_ACTIVE = "SELECT 1 FROM ledger.active_finding WHERE scope = %(scope)s LIMIT 1"

# the superseding commit, the rule and the form of the piece that decided it
EVALUATE_RESULTS = """
SELECT f.id, m.commit_sha, f.supersede_rule,
       (SELECT p.piece ->> 'form'
          FROM ledger.supersession a, jsonb_array_elements(a.detail -> 'pieces') AS p(piece)
         WHERE a.finding_id = f.id AND a.merge_id = f.superseded_by_merge_id AND a.action = 'superseded'
           AND p.piece ->> 'outcome' = 'supersede' AND p.piece ->> 'rule' = f.supersede_rule
         ORDER BY a.id LIMIT 1)
  FROM ledger.finding f
  LEFT JOIN ledger.merge m ON m.id = f.superseded_by_merge_id
 WHERE f.id = ANY(%(ids)s)
"""

EVALUATE_AMBIGUOUS = (
    "SELECT DISTINCT finding_id FROM ledger.supersession WHERE scope = %(scope)s AND action = 'ambiguous'"
)

# --- SARIF (findings_ledger.sarif) ------------------------------------------------

#: A static analyser's run as a re-analysis (replace_findings with its tool and category).
REPLACE_ANALYSIS = (
    "SELECT added, kept, reopened, still_dismissed, superseded, would_supersede, anchors_moved "
    "FROM ledger.replace_findings(p_scope => %(scope)s, p_kind => %(kind)s, p_review_run => %(review_run)s, "
    "p_findings => %(findings)s, p_actor => %(actor)s, p_tool => %(tool)s, p_category => %(category)s)"
)

#: For the rest of the transaction, the backend checks every second that its client is still there, and
#: rolls back (releasing the scope's lock) when it is gone (client_connection_check_interval, PostgreSQL 14).
WATCH_CLIENT = "SELECT set_config('client_connection_check_interval', '1000', true)"

#: A scope's findings for a SARIF log: active ones (and retired ones when asked), by id.
EXPORT_FINDINGS = (
    "SELECT f.id, f.finding_key, f.kind, f.severity, f.title, f.description, f.paths, f.anchors, f.source, "
    "ledger._finding_state(f.superseded_at, f.dismissed_at) AS state "
    "FROM ledger.finding f "
    "WHERE f.scope = %(scope)s AND (f.superseded_at IS NULL OR %(include_retired)s) "
    "ORDER BY f.id"
)
#: Raises LD005 for an unknown scope (ledger.active_findings), before EXPORT_FINDINGS.
CHECK_SCOPE_KNOWN = "SELECT count(*) FROM ledger.active_findings(p_scope => %(scope)s)"
