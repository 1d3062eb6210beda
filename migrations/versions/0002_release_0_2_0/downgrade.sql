-- 0002_release_0_2_0 undone: the frozen state before it
\ir downgrade_guard.sql

DROP POLICY scope_isolation ON ledger.recheck_request;
DROP POLICY scope_isolation ON ledger.file_state_request;
DROP POLICY scope_isolation ON ledger.scope_active_total;
DROP TRIGGER _120_changes ON ledger.merge;
DROP TRIGGER _120_redelivery ON ledger.merge;
DROP TRIGGER _010_immutable ON ledger.merge;
DROP FUNCTION ledger._other_merge_of_commit(text, text, bigint);
DROP FUNCTION ledger._apply_merge(bigint, boolean);
DROP FUNCTION ledger.tg_merge__prepare_changes();
DROP FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb);
DROP FUNCTION ledger.tg_merge__immutable();
DROP FUNCTION ledger.tg_merge__check_redelivery();
DROP FUNCTION ledger.record_merges(text, jsonb);
DROP FUNCTION ledger._insert_merges(text, jsonb);
DROP FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text, text[], text[], jsonb);
DROP FUNCTION ledger._recorded_merge(text, text);
DROP FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text, integer, boolean, text, text);
DROP FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean);
DROP FUNCTION ledger._message_may_match(text, text);
DROP FUNCTION ledger._message_probe_keys(text, text);
DROP FUNCTION ledger._token_keys(text, text[], text[]);
DROP FUNCTION ledger._tokenise(text, boolean);
DROP FUNCTION ledger._object_ends(text);
DROP FUNCTION ledger._token_split_regex();
DROP FUNCTION ledger._token_chars();
DROP FUNCTION ledger._touch_mode(jsonb, text);
DROP FUNCTION ledger._default_touch_mode(text);
DROP FUNCTION ledger._match_changes(text, text[], text[], text[], jsonb, integer);
DROP FUNCTION ledger._path_keys(text[]);
DROP TRIGGER _320_settle_rechecks ON ledger.finding;
DROP TRIGGER _120_check ON ledger.finding;
DROP FUNCTION ledger.pending_file_states(text);
DROP FUNCTION ledger.answer_recheck(bigint, boolean, text, text);
DROP FUNCTION ledger.claim_rechecks(text, text, integer, interval);
DROP FUNCTION ledger.record_file_states(bigint, jsonb);
DROP FUNCTION ledger._settle_checks(bigint);
DROP FUNCTION ledger.tg_finding__settle_rechecks();
DROP FUNCTION ledger._settle_rechecks(bigint);
DROP FUNCTION ledger._overruled_by_person(bigint, bigint);
DROP FUNCTION ledger.tg_finding__prepare_check();
DROP FUNCTION ledger._merge_file_states(text[], text[], text[], text[]);
DROP FUNCTION ledger.lint_check(jsonb, jsonb, text);
DROP FUNCTION ledger._lint_stubs(text);
DROP FUNCTION ledger._check_leaves(jsonb);
DROP FUNCTION ledger._eval_check(jsonb, jsonb);
DROP FUNCTION ledger._check_paths(jsonb);
DROP FUNCTION ledger.validate_check(jsonb, text);
DROP FUNCTION ledger._check_resolved_when(jsonb, text, integer);
DROP FUNCTION ledger._check_pattern(text, text);
DROP FUNCTION ledger._pattern_traps(text);
DROP VIEW ledger.pending_file_state;
DROP FUNCTION ledger.renew_task_lease(bigint, text, interval);
DROP FUNCTION ledger.claim_task(text, text, interval);
DROP FUNCTION ledger._resumed_row(bigint, bigint, text, text, bigint, boolean);
DROP FUNCTION ledger._set_task_status(bigint, text, text, text);
DROP TRIGGER _310_active_totals_update ON ledger.finding;
DROP TRIGGER _310_active_totals_insert ON ledger.finding;
DROP TRIGGER _300_paths_update ON ledger.finding;
DROP TRIGGER _300_paths_insert ON ledger.finding;
DROP FUNCTION ledger.verify_finding(bigint, text, text, text);
DROP FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[], timestamptz, text, text, jsonb, text);
DROP FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer);
DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer);
DROP FUNCTION ledger._finding_touches(bigint, integer);
DROP FUNCTION ledger.read_finding_events(bigint[]);
DROP FUNCTION ledger.replace_findings(text, text, text, jsonb, text, text, text);
DROP FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text);
DROP FUNCTION ledger._report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text);
DROP FUNCTION ledger.tg_finding__active_totals();
DROP FUNCTION ledger.tg_finding__paths_update();
DROP FUNCTION ledger.tg_finding__paths_insert();
DROP FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text);
DROP FUNCTION ledger._require_role(name, text);
DROP FUNCTION ledger.create_publication(text);
DROP FUNCTION ledger._check_json_shape(jsonb, text, jsonb);
DROP FUNCTION ledger.set_hygiene_mode(text, text, boolean);
DROP FUNCTION ledger._unquote_path(text, text);
DROP FUNCTION ledger._scope_kept(text);
DROP FUNCTION ledger._text_kept(text, integer);
DROP FUNCTION ledger._check_commit_sha(text, text);
DROP FUNCTION ledger._check_time_bounds(timestamptz, text);
DROP FUNCTION ledger._check_timestamp(timestamptz, text);
DROP FUNCTION ledger._check_scope(text, text);
DROP FUNCTION ledger._commit_subject(text);
DROP FUNCTION ledger._unicode_class(text);
DROP FUNCTION ledger._message_tokens(text);
DROP FUNCTION ledger.read_audit(text, bigint, bigint);
\ir ../0001_baseline/functions/_scoped_paths.sql
\ir ../0001_baseline/functions/normalize_path.sql
\ir ../0001_baseline/functions/normalize_paths.sql
\ir ../0001_baseline/functions/_match_paths.sql
\ir ../0001_baseline/functions/tg_scope__prepare.sql
\ir ../0001_baseline/functions/tg_finding__prepare.sql
\ir ../0001_baseline/functions/tg_merge__prepare.sql
\ir ../0001_baseline/functions/tg_merge__supersede.sql
\ir ../0001_baseline/functions/add_finding.sql
\ir ../0001_baseline/functions/record_merge.sql
\ir ../0001_baseline/functions/read_audit.sql
\ir ../0001_baseline/functions/set_hygiene_mode.sql
\ir ../0001_baseline/functions/_snapshot_changes.sql
\ir ../0001_baseline/functions/tg_issue__prepare.sql
\ir ../0001_baseline/functions/tg_agent_task__prepare.sql
\ir ../0001_baseline/functions/_resumed_task.sql
\ir ../0001_baseline/functions/_write_issue_snapshot.sql
\ir ../0001_baseline/functions/claim_task.sql
\ir ../0001_baseline/functions/start_task.sql
\ir ../0001_baseline/functions/complete_task.sql
\ir ../0001_baseline/functions/fail_task.sql
\ir ../0001_baseline/functions/cancel_task.sql
\ir ../0001_baseline/functions/requeue_task.sql
\ir ../0001_baseline/functions/tg_finding__lifecycle.sql
\ir ../0001_baseline/functions/report_finding.sql
\ir ../0001_baseline/functions/replace_findings.sql
\ir ../0001_baseline/functions/dismiss_finding.sql
\ir ../0001_baseline/functions/restore_finding.sql
\ir ../0001_baseline/functions/tg_merge__revert.sql
\ir ../0001_baseline/functions/tg_supersession__notify.sql
\ir ../0001_baseline/functions/tg_injection__prepare.sql
\ir ../0001_baseline/functions/read_prompt_findings.sql
\ir ../0001_baseline/functions/read_history.sql
\ir ../0001_baseline/functions/_token_regex.sql
\ir ../0001_baseline/functions/_words.sql
\ir ../0001_baseline/functions/_evidence_token.sql
\ir ../0001_baseline/functions/_file_slug.sql
\ir ../0001_baseline/functions/_title_sig.sql
\ir ../0001_baseline/functions/_evidence_keys.sql
\ir ../0001_baseline/functions/_message_segments.sql
\ir ../0001_baseline/functions/_message_tokens.sql
\ir ../0001_baseline/functions/_match_message.sql
\ir ../0001_baseline/functions/_merge_decisions.sql
\ir ../0001_baseline/functions/tg_finding__prepare_evidence.sql
\ir ../0001_baseline/functions/tg_scope__prepare_policy.sql
\ir ../0001_baseline/functions/import_finding.sql
\ir ../0001_baseline/functions/workspace_scope.sql
\ir ../0001_baseline/functions/set_match_policy.sql
\ir ../0001_baseline/functions/tg_scoped__check_access.sql
\ir ../0001_baseline/functions/_revert_targets.sql
\ir ../0001_baseline/functions/_apply_merge.sql
\ir ../0001_baseline/functions/_apply_revert.sql
\ir ../0001_baseline/functions/reconcile.sql
\ir ../0001_baseline/triggers/finding___100_prepare.sql
\ir ../0001_baseline/triggers/merge___200_supersede.sql
\ir ../0001_baseline/triggers/merge___300_revert.sql
ALTER FUNCTION ledger._check_text(text, text, boolean, integer, boolean) SET search_path = pg_catalog;
ALTER FUNCTION ledger._ensure_scope(text) RESET enable_seqscan SET search_path = pg_catalog;
ALTER FUNCTION ledger._visible_scopes() SET search_path = pg_catalog;
ALTER FUNCTION ledger._scope_visible(text) SET search_path = pg_catalog;
ALTER FUNCTION ledger._check_scope_access(text, text) SET search_path = pg_catalog;
ALTER FUNCTION ledger.enable_scope_rls() SET search_path = pg_catalog;
ALTER FUNCTION ledger.disable_scope_rls() SET search_path = pg_catalog;
ALTER FUNCTION ledger.active_findings(text) SET search_path = pg_catalog;
ALTER FUNCTION ledger._reopen_finding(ledger.finding, text, text, text, text, text, bigint, jsonb) SET search_path = pg_catalog;
ALTER FUNCTION ledger.tg_finding__forbid_delete() SET search_path = pg_catalog;
ALTER FUNCTION ledger.read_finding(bigint) SET search_path = pg_catalog;
ALTER FUNCTION ledger.record_injection(text, bigint[]) SET search_path = pg_catalog;
ALTER FUNCTION ledger.read_injections(text, bigint) SET search_path = pg_catalog;
ALTER FUNCTION ledger.measure_convergence(text) SET search_path = pg_catalog;
ALTER FUNCTION ledger.tg_supersession__append_only() SET search_path = pg_catalog;
ALTER FUNCTION ledger._snapshot_version() SET search_path = pg_catalog;
ALTER FUNCTION ledger.issue_snapshot(text, text, integer) SET search_path = pg_catalog;
ALTER FUNCTION ledger._check_task_transition(bigint, text, text) SET search_path = pg_catalog;
ALTER FUNCTION ledger.tg_agent_task__guard_snapshot() SET search_path = pg_catalog;
ALTER FUNCTION ledger.tg_merge__prepare_branch() SET search_path = pg_catalog;
COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (seed 000''s marker), or its commit sha when it has none.';
COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (seed 001 rule i); default false: only a resolution verb does.';
COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique: redeliver with INSERT ... ON CONFLICT DO NOTHING. Inserting a row supersedes findings (trigger _200_supersede).';
COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the superseded_by IS NULL filter of seed 000. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the states of issue 5. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
REVOKE EXECUTE ON FUNCTION ledger._apply_merge(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._match_paths(text, text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._merge_decisions(text, text, text[], text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._message_tokens(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._resumed_task(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._scoped_paths(text, text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._write_issue_snapshot(bigint, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.claim_task(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_audit(text, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.set_hygiene_mode(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_merge__revert() FROM PUBLIC;
REVOKE INSERT (scope) ON TABLE ledger.agent_task FROM ledger_writer;
REVOKE INSERT (anchors, expects, observed_at, observed_at_precision, resolved_when, task_group) ON TABLE ledger.finding FROM ledger_writer;
REVOKE INSERT (scope) ON TABLE ledger.injection FROM ledger_writer;
REVOKE INSERT (added, deleted, hunks) ON TABLE ledger.merge FROM ledger_writer;
REVOKE INSERT (line_context, touch_modes) ON TABLE ledger.scope FROM ledger_admin;
REVOKE UPDATE (line_context, touch_modes) ON TABLE ledger.scope FROM ledger_admin;
GRANT EXECUTE ON FUNCTION ledger._scoped_paths(text, text[]) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.claim_task(text, text) TO ledger_agent;
GRANT EXECUTE ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.read_audit(text, bigint, bigint) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.set_hygiene_mode(text, text) TO ledger_admin;
GRANT EXECUTE ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text) TO ledger_admin;
ALTER TABLE ledger.injection DROP COLUMN scope;
ALTER TABLE ledger.agent_task DROP COLUMN scope;
ALTER TABLE ledger.agent_task DROP COLUMN lease_expires_at;
ALTER TABLE ledger.finding DROP COLUMN resolved_when;
ALTER TABLE ledger.finding DROP COLUMN observed_at_precision;
ALTER TABLE ledger.scope DROP COLUMN touch_modes;
ALTER TABLE ledger.finding DROP COLUMN task_group;
ALTER TABLE ledger.finding DROP COLUMN anchors;
ALTER TABLE ledger.finding DROP COLUMN expects;
ALTER TABLE ledger.finding DROP COLUMN observed_at;
ALTER TABLE ledger.merge DROP COLUMN hunks;
ALTER TABLE ledger.merge DROP COLUMN deleted;
ALTER TABLE ledger.merge DROP COLUMN added;
ALTER TABLE ledger.scope DROP COLUMN line_context;
DROP TABLE ledger.recheck_request;
DROP TABLE ledger.file_state_request;
DROP TABLE ledger.scope_active_total;
DROP TABLE ledger.finding_path;
CREATE INDEX finding_active_paths_idx ON ledger.finding
    USING gin (ledger._scoped_paths(scope, paths)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
