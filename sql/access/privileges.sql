-- Privileges: the one place grants live. One block per role; each line is one
-- object. A new table or function belongs to exactly the roles that need it
-- (none is the default); tests/access/test_security_roles.py fails for a function or
-- table nobody classified.
-- Re-runnable, and exact when re-run: everything the four roles and PUBLIC
-- hold in the schema is revoked first (revoking a table's privileges revokes
-- its column privileges too), then granted as listed, all in the caller's
-- transaction. A revision holds only the GRANT and REVOKE statements of the
-- privileges that changed (tools/new_revision.py compares grant by grant).
REVOKE ALL ON ALL TABLES IN SCHEMA ledger FROM PUBLIC, ledger_writer, ledger_reader, ledger_agent, ledger_admin;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA ledger FROM PUBLIC, ledger_writer, ledger_reader, ledger_agent, ledger_admin;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ledger FROM PUBLIC, ledger_writer, ledger_reader, ledger_agent, ledger_admin;
GRANT USAGE ON SCHEMA ledger TO ledger_writer, ledger_reader, ledger_agent, ledger_admin;

-- The policies and the views call it for whoever reads.
GRANT EXECUTE ON FUNCTION ledger._visible_scopes() TO ledger_writer, ledger_reader, ledger_agent, ledger_admin;
GRANT EXECUTE ON FUNCTION ledger._check_time_bounds(timestamptz, text) TO ledger_writer, ledger_reader, ledger_agent, ledger_admin;

-- Helpers the BEFORE triggers call with the rights of the role that writes the
-- row (trigger functions themselves need no EXECUTE): scope rows are written
-- by writers (a scope is created on first use) and by the admin (policy).
GRANT EXECUTE ON FUNCTION
    ledger._check_text(text, text, boolean, integer, boolean),
    ledger._check_scope(text, text),
    ledger._unicode_class(text),
    ledger._check_scope_access(text, text),
    ledger._scope_visible(text),
    ledger._normalize_branch(text, text),
    ledger._text_kept(text, integer),
    ledger._scope_kept(text),
    ledger._anchors_kept(jsonb, text[]),
    ledger._check_merge_changes(text[], text[], text[], jsonb)
    TO ledger_writer, ledger_admin;

-- ledger_writer: insert findings, merges, issues, tasks, injections; report and
-- re-review findings, import them. Never the supersession, dismissal or
-- counter columns of a finding, never processed/recorded_at of a merge, never
-- issue_snapshot or the dispatch columns of a task, never the audit, never
-- scope policy, never UPDATE or DELETE but an issue's own fields.
GRANT EXECUTE ON FUNCTION
    ledger._ensure_scope(text),
    ledger._check_timestamp(timestamptz, text),
    ledger._recorded_merge(text, text),
    ledger._check_commit_sha(text, text),
    ledger._unquote_path(text, text),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger._evidence_keys(text, text, text, text[], text),
    ledger._evidence_token(text),
    ledger._title_sig(text),
    ledger._words(text),
    ledger._significant(text),
    ledger._token_chars(),
    ledger._token_regex(boolean),
    ledger.add_finding(text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text),
    ledger.record_merge(text, text, text[], text, text, timestamptz, text, text[], text[], jsonb),
    ledger.record_merges(text, jsonb),
    ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text),
    ledger.replace_findings(text, text, text, jsonb, text, text, text),
    ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[], timestamptz, text, text, jsonb, text),
    ledger._check_resolved_when(jsonb, text, integer),
    ledger._pattern_traps(text),
    ledger._check_pattern(text, text),
    ledger.validate_check(jsonb, text),
    ledger.lint_check(jsonb, jsonb, text),
    ledger._check_paths(jsonb),
    ledger.record_file_states(bigint, jsonb),
    ledger.claim_rechecks(text, text, integer, interval),
    ledger.answer_recheck(bigint, boolean, text, text),
    ledger.pending_file_states(text),
    ledger.workspace_scope(text),
    ledger.record_injection(text, bigint[]),
    ledger.add_issue(text, text, text, text, text, text, text),
    ledger.enqueue_task(bigint, text, text, bigint, boolean),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_writer;
-- (SELECT on injection: INSERT ... ON CONFLICT needs it for the arbiter columns)
GRANT SELECT ON ledger.scope, ledger.finding, ledger.merge, ledger.issue, ledger.agent_task, ledger.injection,
                ledger.file_state_request, ledger.pending_file_state, ledger.recheck_request
    TO ledger_writer;
GRANT INSERT (scope) ON ledger.scope TO ledger_writer;
GRANT INSERT (scope, finding_key, kind, severity, title, description, paths, source, created_at,
              slug, strong_keywords, tags, observed_at, expects, anchors, task_group, resolved_when,
              observed_at_precision)
    ON ledger.finding TO ledger_writer;
GRANT INSERT (scope, commit_sha, node_id, message, paths, merged_at, branch, added, deleted, hunks)
    ON ledger.merge TO ledger_writer;
GRANT INSERT (scope, title, description, status, priority, assignee_type, assignee_id),
      UPDATE (title, description, status, priority, assignee_type, assignee_id)
    ON ledger.issue TO ledger_writer;
-- (scope on agent_task and injection: the trigger sets it from the issue / finding; a writer
-- may send it too, as a distributed ledger will need, and is refused when it is another)
GRANT INSERT (issue_id, agent_id, runtime_id, rerun_of_task_id, force_fresh_session, scope)
    ON ledger.agent_task TO ledger_writer;
GRANT INSERT (session_id, finding_id, injected_at, scope) ON ledger.injection TO ledger_writer;

-- ledger_reader: active findings, history (findings, lifecycle, merges,
-- injections), the audit, issues and tasks.
GRANT SELECT ON ledger.active_finding, ledger.finding_lifecycle, ledger.finding, ledger.merge, ledger.scope,
                ledger.supersession, ledger.injection, ledger.issue, ledger.agent_task,
                ledger.poisoned_failure_reason, ledger.retired_session,
                ledger.file_state_request, ledger.pending_file_state, ledger.recheck_request, ledger.scope_active_total
    TO ledger_reader;
GRANT EXECUTE ON FUNCTION
    ledger._severity_rank(text),
    ledger._finding_state(timestamptz, timestamptz),
    ledger._check_text(text, text, boolean, integer, boolean),
    ledger._unicode_class(text),
    ledger._commit_subject(text),
    ledger._anchor_moves(jsonb, bigint),
    ledger._unquote_path(text, text),
    ledger.active_findings(text),
    ledger.pending_file_states(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.read_finding_events(bigint[]),
    ledger.read_finding(bigint),
    ledger.read_history(bigint),
    ledger.read_injections(text, bigint),
    ledger.measure_convergence(text),
    ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer),
    ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer),
    ledger._finding_touches(bigint, integer),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger.workspace_scope(text),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_reader;

-- ledger_agent: task claims; reads its issues and tasks; retires provider sessions;
-- gives its verdict on a finding its prompt showed (verify_finding: the agent
-- that read the prompt checks the finding at the moment of use; no other role).
GRANT EXECUTE ON FUNCTION
    ledger.claim_task(text, text, interval),
    ledger.renew_task_lease(bigint, text, interval),
    ledger.start_task(bigint, text),
    ledger.complete_task(bigint, text),
    ledger.fail_task(bigint, text, text),
    ledger.cancel_task(bigint, text),
    ledger.requeue_task(bigint),
    ledger.verify_finding(bigint, text, text, text),
    ledger.issue_snapshot(text, text, integer),
    ledger._snapshot_version()
    TO ledger_agent;
GRANT SELECT ON ledger.issue, ledger.agent_task, ledger.poisoned_failure_reason, ledger.retired_session
    TO ledger_agent;
GRANT INSERT (session_id, reason) ON ledger.retired_session TO ledger_agent;

-- ledger_admin: scope policy (hygiene mode, matching policy), poisoned failure
-- reasons and retired sessions, dismissals and restores, reconcile, and
-- reading everything the reader reads.
GRANT SELECT ON ledger.active_finding, ledger.finding_lifecycle, ledger.finding, ledger.merge, ledger.scope,
                ledger.supersession, ledger.injection, ledger.issue, ledger.agent_task,
                ledger.poisoned_failure_reason, ledger.retired_session,
                ledger.file_state_request, ledger.pending_file_state, ledger.recheck_request, ledger.scope_active_total
    TO ledger_admin;
GRANT INSERT (scope, hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch,
              line_context, touch_modes),
      UPDATE (hygiene_mode, enabled_rules, path_supersede_kinds, slug_mention_resolves, default_branch, line_context,
              touch_modes)
    ON ledger.scope TO ledger_admin;
GRANT INSERT, DELETE, UPDATE (note) ON ledger.poisoned_failure_reason TO ledger_admin;
GRANT INSERT, DELETE ON ledger.retired_session TO ledger_admin;
GRANT EXECUTE ON FUNCTION
    ledger._severity_rank(text),
    ledger._finding_state(timestamptz, timestamptz),
    ledger._unquote_path(text, text),
    ledger._commit_subject(text),
    ledger._anchor_moves(jsonb, bigint),
    ledger.active_findings(text),
    ledger.pending_file_states(text),
    ledger.read_audit(text, bigint, bigint),
    ledger.read_finding_events(bigint[]),
    ledger.read_finding(bigint),
    ledger.read_history(bigint),
    ledger.read_injections(text, bigint),
    ledger.measure_convergence(text),
    ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer),
    ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer),
    ledger._finding_touches(bigint, integer),
    ledger.normalize_path(text, text),
    ledger.normalize_paths(text[], text, integer),
    ledger.workspace_scope(text),
    ledger.set_hygiene_mode(text, text, boolean),
    ledger.set_match_policy(text, text[], text[], boolean, text, integer, boolean, text, text),
    ledger.dismiss_finding(bigint, text, text, text),
    ledger.restore_finding(bigint, text, text),
    ledger.reconcile(text)
    TO ledger_admin;

-- Not granted to any ledger role, on purpose: _require_role (the definers' check of
-- their caller's role), _report_finding (report_finding's and replace_findings' work),
-- _apply_merge, _apply_revert,
-- _revert_targets, _reopen_finding, _check_json_shape (replace_findings'
-- argument check), record_merges' _insert_merges, reconcile's _other_merge_of_commit, the matcher's internals (_match_changes,
-- _merge_decisions, _match_message, the checks' _eval_check, _merge_file_states, _settle_checks, lint_check's
-- _check_leaves and _lint_stubs,
-- the touch modes' _touch_mode, _default_touch_mode, _touch_counts,
-- _message_may_match, _message_probe_keys, _token_split_regex, _tokenise, _token_keys, _message_tokens, _message_segments,
-- _file_slug, _object_ends) and the claim's (_resumed_row,
-- _snapshot_changes, _check_task_transition) and the task transitions' _set_task_status: only SECURITY DEFINER
-- functions run them, as the owner; the tg_* trigger functions;
-- enable_scope_rls / disable_scope_rls (the owner's switch); create_publication (the owner's, for logical
-- replication); alembic_version;
-- finding_path (the path rule's index, written only by the SECURITY DEFINER
-- trigger functions tg_finding__paths_insert and tg_finding__paths_update).
