-- 0002_release_0_2_0: release 0.2.0

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0001_baseline']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0002_release_0_2_0 expects the database at 0001_baseline, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

DROP INDEX IF EXISTS ledger.finding_active_paths_idx;
DROP TRIGGER _300_revert ON ledger.merge;
DROP FUNCTION ledger._apply_merge(bigint);
DROP FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text);
DROP FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[]);
DROP FUNCTION ledger._merge_decisions(text, text, text[], text);
DROP FUNCTION ledger.read_prompt_findings(text, text[], interval, integer);
DROP FUNCTION ledger.tg_merge__revert();
DROP FUNCTION ledger.replace_findings(text, text, text, jsonb, text);
DROP FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text);
DROP FUNCTION ledger.claim_task(text, text);
DROP FUNCTION ledger._write_issue_snapshot(bigint, integer);
DROP FUNCTION ledger._resumed_task(bigint);
DROP FUNCTION ledger.set_hygiene_mode(text, text);
DROP FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text);
DROP FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text);
DROP FUNCTION ledger._match_paths(text, text[]);
DROP FUNCTION ledger._scoped_paths(text, text[]);
DROP FUNCTION ledger.read_audit(text, bigint, bigint);
DROP FUNCTION ledger._message_tokens(text);
\ir tables/finding_path.sql
\ir tables/scope_active_total.sql
\ir tables/file_state_request.sql
\ir tables/recheck_request.sql
-- the replaced revisions' table and data steps
ALTER TABLE ledger.scope ADD COLUMN line_context integer NOT NULL DEFAULT 0;
ALTER TABLE ledger.scope ADD CONSTRAINT scope_line_context_check CHECK (line_context BETWEEN 0 AND 1000) NOT VALID;
ALTER TABLE ledger.scope VALIDATE CONSTRAINT scope_line_context_check;
ALTER TABLE ledger.merge ADD COLUMN added text[];
ALTER TABLE ledger.merge ADD COLUMN deleted text[];
ALTER TABLE ledger.merge ADD COLUMN hunks jsonb;
ALTER TABLE ledger.merge ADD CONSTRAINT merge_hunks_check CHECK (jsonb_typeof(hunks) = 'object') NOT VALID;
ALTER TABLE ledger.merge VALIDATE CONSTRAINT merge_hunks_check;
ALTER TABLE ledger.finding ADD COLUMN observed_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE ledger.finding ADD COLUMN expects text NOT NULL DEFAULT 'change';
ALTER TABLE ledger.finding ADD COLUMN anchors jsonb;
ALTER TABLE ledger.finding ADD COLUMN task_group text;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_expects_check CHECK (expects IN ('change', 'present', 'absent')) NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_expects_check;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_anchors_check CHECK (jsonb_typeof(anchors) = 'object') NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_anchors_check;
INSERT INTO ledger.finding_path (scope, path, finding_id)
SELECT DISTINCT f.scope, p.path, f.id
  FROM ledger.finding f CROSS JOIN LATERAL unnest(f.paths) AS p(path)
 WHERE f.superseded_at IS NULL;
DO $$
BEGIN
    IF (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = 'ledger.finding'::regclass) THEN
        ALTER TABLE ledger.scope_active_total ENABLE ROW LEVEL SECURITY;
    END IF;
END
$$;
INSERT INTO ledger.scope_active_total (scope, findings, chars)
SELECT f.scope, count(*), sum(length(f.title) + coalesce(1 + length(f.description), 0))
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL
 GROUP BY f.scope;
ALTER TABLE ledger.scope ADD COLUMN touch_modes jsonb NOT NULL DEFAULT '{}';
ALTER TABLE ledger.scope ADD CONSTRAINT scope_touch_modes_check CHECK (jsonb_typeof(touch_modes) = 'object') NOT VALID;
ALTER TABLE ledger.scope VALIDATE CONSTRAINT scope_touch_modes_check;
ALTER TABLE ledger.finding ADD COLUMN resolved_when jsonb;
ALTER TABLE ledger.finding ADD COLUMN observed_at_precision text NOT NULL DEFAULT 'instant';
ALTER TABLE ledger.finding ADD CONSTRAINT finding_resolved_when_check CHECK (jsonb_typeof(resolved_when) = 'object') NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_resolved_when_check;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_observed_at_precision_check CHECK (observed_at_precision IN ('instant', 'day')) NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_observed_at_precision_check;
ALTER TABLE ledger.agent_task ADD COLUMN lease_expires_at timestamptz;
ALTER TABLE ledger.agent_task ADD COLUMN scope text;
UPDATE ledger.agent_task t SET scope = i.scope FROM ledger.issue i WHERE i.id = t.issue_id;
ALTER TABLE ledger.agent_task ALTER COLUMN scope SET NOT NULL;
ALTER TABLE ledger.agent_task ADD CONSTRAINT agent_task_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope) NOT VALID;
ALTER TABLE ledger.agent_task VALIDATE CONSTRAINT agent_task_scope_fkey;
ALTER TABLE ledger.injection ADD COLUMN scope text;
UPDATE ledger.injection j SET scope = f.scope FROM ledger.finding f WHERE f.id = j.finding_id;
ALTER TABLE ledger.injection ALTER COLUMN scope SET NOT NULL;
ALTER TABLE ledger.injection ADD CONSTRAINT injection_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope) NOT VALID;
ALTER TABLE ledger.injection VALIDATE CONSTRAINT injection_scope_fkey;
-- indexes/merge_scope_commit_sha_bytes_idx.sql: built CONCURRENTLY, see concurrently.sql
-- indexes/injection_scope_idx.sql: built CONCURRENTLY, see concurrently.sql
-- indexes/agent_task_lease_idx.sql: built CONCURRENTLY, see concurrently.sql
-- indexes/agent_task_scope_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir functions/_unicode_class.sql
\ir functions/_commit_subject.sql
\ir functions/_check_scope.sql
\ir functions/_check_timestamp.sql
\ir functions/_check_time_bounds.sql
\ir functions/_check_commit_sha.sql
\ir functions/_text_kept.sql
\ir functions/_scope_kept.sql
\ir functions/_unquote_path.sql
\ir functions/normalize_path.sql
\ir functions/normalize_paths.sql
\ir functions/tg_scope__prepare.sql
\ir functions/set_hygiene_mode.sql
\ir functions/_check_json_shape.sql
\ir functions/workspace_scope.sql
\ir functions/create_publication.sql
\ir functions/_require_role.sql
\ir functions/tg_scoped__check_access.sql
\ir functions/tg_finding__prepare.sql
\ir functions/add_finding.sql
\ir functions/read_audit.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/tg_finding__paths_insert.sql
\ir functions/tg_finding__paths_update.sql
\ir functions/tg_finding__active_totals.sql
\ir functions/_report_finding.sql
\ir functions/report_finding.sql
\ir functions/replace_findings.sql
\ir functions/dismiss_finding.sql
\ir functions/restore_finding.sql
\ir functions/tg_supersession__notify.sql
\ir functions/read_finding_events.sql
\ir functions/tg_injection__prepare.sql
\ir functions/_finding_touches.sql
\ir functions/read_prompt_findings.sql
\ir functions/read_prompt_text.sql
\ir functions/read_history.sql
\ir functions/import_finding.sql
\ir functions/verify_finding.sql
-- indexes/finding_prompt_order_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir triggers/finding___100_prepare.sql
\ir triggers/finding___300_paths_insert.sql
\ir triggers/finding___300_paths_update.sql
\ir triggers/finding___310_active_totals_insert.sql
\ir triggers/finding___310_active_totals_update.sql
\ir functions/_snapshot_changes.sql
\ir functions/_set_task_status.sql
\ir functions/tg_issue__prepare.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/_resumed_row.sql
\ir functions/claim_task.sql
\ir functions/renew_task_lease.sql
\ir functions/start_task.sql
\ir functions/complete_task.sql
\ir functions/fail_task.sql
\ir functions/cancel_task.sql
\ir functions/requeue_task.sql
\ir views/pending_file_state.sql
\ir functions/_pattern_traps.sql
\ir functions/_check_pattern.sql
\ir functions/_check_resolved_when.sql
\ir functions/validate_check.sql
\ir functions/_check_paths.sql
\ir functions/_eval_check.sql
\ir functions/_check_leaves.sql
\ir functions/_lint_stubs.sql
\ir functions/lint_check.sql
\ir functions/_merge_file_states.sql
\ir functions/tg_finding__prepare_check.sql
\ir functions/_overruled_by_person.sql
\ir functions/_settle_rechecks.sql
\ir functions/tg_finding__settle_rechecks.sql
\ir functions/_settle_checks.sql
\ir functions/record_file_states.sql
\ir functions/claim_rechecks.sql
\ir functions/answer_recheck.sql
\ir functions/pending_file_states.sql
\ir triggers/finding___120_check.sql
\ir triggers/finding___320_settle_rechecks.sql
\ir functions/_path_keys.sql
\ir functions/_match_changes.sql
\ir functions/_default_touch_mode.sql
\ir functions/_touch_mode.sql
\ir functions/_token_chars.sql
\ir functions/_token_regex.sql
\ir functions/_token_split_regex.sql
\ir functions/_words.sql
\ir functions/_evidence_token.sql
\ir functions/_file_slug.sql
\ir functions/_object_ends.sql
\ir functions/_title_sig.sql
\ir functions/_evidence_keys.sql
\ir functions/_tokenise.sql
\ir functions/_token_keys.sql
\ir functions/_message_segments.sql
\ir functions/_message_tokens.sql
\ir functions/_match_message.sql
\ir functions/_message_probe_keys.sql
\ir functions/_message_may_match.sql
\ir functions/_merge_decisions.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/tg_scope__prepare_policy.sql
\ir functions/set_match_policy.sql
\ir functions/_recorded_merge.sql
\ir functions/tg_merge__prepare.sql
\ir functions/tg_merge__supersede.sql
\ir functions/record_merge.sql
\ir functions/_insert_merges.sql
\ir functions/record_merges.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/tg_merge__immutable.sql
\ir functions/_check_merge_changes.sql
\ir functions/tg_merge__prepare_changes.sql
\ir functions/_revert_targets.sql
\ir functions/_apply_merge.sql
\ir functions/_apply_revert.sql
\ir functions/_other_merge_of_commit.sql
\ir functions/reconcile.sql
\ir triggers/merge___010_immutable.sql
\ir triggers/merge___120_redelivery.sql
\ir triggers/merge___120_changes.sql
\ir triggers/merge___200_supersede.sql
\ir policies/scope_active_total__scope_isolation.sql
\ir policies/file_state_request__scope_isolation.sql
\ir policies/recheck_request__scope_isolation.sql
ALTER FUNCTION ledger._check_text(text, text, boolean, integer, boolean) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._ensure_scope(text) SET enable_seqscan = off SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._visible_scopes() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._scope_visible(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._check_scope_access(text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.enable_scope_rls() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.disable_scope_rls() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.active_findings(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._reopen_finding(ledger.finding, text, text, text, text, text, bigint, jsonb) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.tg_finding__forbid_delete() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.read_finding(bigint) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.record_injection(text, bigint[]) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.read_injections(text, bigint) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.measure_convergence(text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.tg_supersession__append_only() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._snapshot_version() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.issue_snapshot(text, text, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger._check_task_transition(bigint, text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.tg_agent_task__guard_snapshot() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION ledger.tg_merge__prepare_branch() SET search_path = pg_catalog, pg_temp;
COMMENT ON COLUMN ledger.agent_task.lease_expires_at IS
'Until when the runtime that claimed the task holds it (ledger.claim_task with p_lease; extended by ledger.renew_task_lease). NULL: claimed without a lease, held until the task ends. Once it has passed, a task still dispatched or running is claimable again: the claim that takes it over fails it with failure_reason lease_expired and dispatches a rerun of it. Written only by those two functions.';
COMMENT ON COLUMN ledger.agent_task.scope IS
'The scope of the task''s issue (ledger.issue.scope), set by the _100_prepare trigger from issue_id: a writer need not send it, and one that sends another scope than the issue''s is refused (LD003). Follows issue_id while the task is queued.';
COMMENT ON COLUMN ledger.finding.anchors IS
'Line anchors, {"<path>": [first_line, last_line]} (1-based, inclusive), taken from paths written src/a.py:42 (42-42), src/a.py:42:7 (42-42) or src/a.py:40-48 (40-48); paths holds the bare path. NULL: no anchor (the file-level rule). A merge with hunks for an anchored path supersedes the finding only when a hunk overlaps the range (within the scope''s line_context) and otherwise moves the range by the lines its hunks added or removed above it (audited anchor_moved).';
COMMENT ON COLUMN ledger.finding.expects IS
'What change resolves the finding: change (default: a merge touching a path it references, or its anchored lines), present (it says a path is missing: a merge that adds the path, or a file under the directory), absent (it says a path should not exist: a merge that deletes it). A merge that does not say what it added or deleted only records a candidate for present and absent.';
COMMENT ON COLUMN ledger.finding.observed_at IS
'When the problem was observed (default: when the row was written; importers take it from the file''s date). A merge whose merged_at is before least(observed_at, created_at) never supersedes the finding: it is audited not_before_observed. Rows written before this column existed read the time of the upgrade, so for them the rule uses created_at.';
COMMENT ON COLUMN ledger.finding.observed_at_precision IS
'How precisely observed_at is known: instant (default) or day (only its UTC date is known; importers write a date-only value as that day''s end, 23:59:59.999999 UTC). With day, naming evidence (the finding''s own key or slug governed by a resolution verb: a commit cannot name a slug that did not exist yet) passes the causality gate for a merge on or after the start of that UTC day; every other rule (path, line, expects, keyword, title, check) compares with least(observed_at, created_at) as for instant.';
COMMENT ON COLUMN ledger.finding.resolved_when IS
'The check that proves the finding resolved, evaluated on the tree of each merge that touches a path it names (NULL: no check, the touch rules apply). Closed grammar, one key per node: {"path_exists": "a/b.py" | "pkg/"}, {"path_absent": ...} (a trailing / is a directory: at least one file under it), {"file_contains": {"path": "f.py", "pattern": "REGEX"}} (the file exists and its text matches REGEX with ~), {"file_lacks": {"path": "f.py", "pattern": "REGEX"}} (absent or not matching), {"all": [...]}, {"any": [...]} (non-empty). At most depth 8, 64 nodes, a pattern of 1000 characters; paths normalised as finding.paths, and every path a check names is added to paths if absent (so the path index finds the finding on a touch). Validated on write by ledger._check_resolved_when (LD003 / LD004 naming the part, e.g. finding.resolved_when.all[1].file_contains.pattern). A merge never retires a checked finding by a touch (path, line or expects rule) nor by a message: a touch of a path the check names, or a message naming the finding''s key or slug with a resolution verb, opens a file-state request (ledger.file_state_request), and the finding retires, rule check, at the first such merge whose tree makes the check hold.';
COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (the drift-review scenario''s marker), or its commit sha when it has none.';
COMMENT ON COLUMN ledger.finding.task_group IS
'The task group the finding was generated for (the drift-review scenario''s Option C), e.g. 07_nightshift_standalone_cli:0; set explicitly, or taken from source when source is a node id ending in :<number>. NULL: unknown. ledger.read_prompt_findings(p_current_group, p_max_groups) keeps the findings at most p_max_groups groups back (the trailing number orders groups of the same prefix).';
COMMENT ON COLUMN ledger.injection.scope IS
'The scope of the injected finding (ledger.finding.scope), set by the _100_prepare trigger from finding_id: a writer need not send it, and one that sends another scope than the finding''s is refused (LD003).';
COMMENT ON COLUMN ledger.merge.added IS
'The paths the merge added (a subset of paths, normalised like them); NULL: unknown. A rename is its new path added and its old path deleted. Findings that expect a path present are retired only by a merge that adds it.';
COMMENT ON COLUMN ledger.merge.deleted IS
'The paths the merge deleted (a subset of paths, normalised like them), and directories (ending in /) that no longer exist after it, each holding one of paths; NULL: unknown. Findings that expect a path absent are retired only by a merge that deletes it.';
COMMENT ON COLUMN ledger.merge.hunks IS
'The changed lines per path, git''s @@ -a,b +c,d @@ of git diff -U0: {"<path>": [[old_start, old_count, new_start, new_count], ...]}, paths among paths, integers >= 0; a rename''s hunks under its old path; NULL or a path left out: no line information for it (the file-level rule applies). Anchored findings on a path with hunks are superseded only when a hunk overlaps their lines; otherwise their anchors move (with a rename that keeps their lines, to the new path).';
COMMENT ON COLUMN ledger.scope.line_context IS
'Lines of context around a finding''s anchor within which a merge''s hunk counts as changing it (default 0: the hunk must change one of the anchored lines; on the 48 TODO lines of the real histories in docs/matching.md, a context of 3 lines retires 24 of them too early). 0 to 1000.';
COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (ADR-010''s rule i); default false: only a resolution verb does.';
COMMENT ON COLUMN ledger.scope.touch_modes IS
'What a touch that the path rule would take as resolving does to a finding without a check, per kind: {"<kind>": "retire" | "recheck" | "flag", "*": ...}. retire: the path rule supersedes it; recheck: a recheck request (ledger.recheck_request) is opened instead and a verifier decides; flag: the finding stays and the audit records flagged (read_prompt_findings lists the merges as touched_by). A kind not listed takes "*", else ledger._default_touch_mode(kind): flag for drift, retire for every other kind. Set with ledger.set_match_policy(p_touch, p_touch_kind).';
COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique, and an abbreviated sha is the same commit: redeliver with INSERT ... ON CONFLICT DO NOTHING; a redelivery with other paths, message or branch fails (LD007). Immutable once processed: every UPDATE fails (LD006). Inserting a row supersedes findings (trigger _200_supersede).';
COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the drift-review scenario''s superseded_by IS NULL filter. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the lifecycle states. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
REVOKE EXECUTE ON FUNCTION ledger._apply_merge(bigint, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_commit_sha(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_json_shape(jsonb, text, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_leaves(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_paths(jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_pattern(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_resolved_when(jsonb, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_scope(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_time_bounds(timestamptz, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._check_timestamp(timestamptz, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._commit_subject(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._default_touch_mode(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._eval_check(jsonb, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._insert_merges(text, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._lint_stubs(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._match_changes(text, text[], text[], text[], jsonb, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._merge_decisions(text, text, text[], text, timestamptz, text[], text[], jsonb, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._merge_file_states(text[], text[], text[], text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._message_may_match(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._message_probe_keys(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._message_tokens(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._object_ends(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._other_merge_of_commit(text, text, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._overruled_by_person(bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._path_keys(text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._pattern_traps(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._recorded_merge(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._require_role(name, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._resumed_row(bigint, bigint, text, text, bigint, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._scope_kept(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._set_task_status(bigint, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._settle_checks(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._settle_rechecks(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._text_kept(text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._token_chars() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._token_keys(text, text[], text[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._token_split_regex() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._tokenise(text, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._touch_mode(jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._unicode_class(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger._unquote_path(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.claim_task(text, text, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.create_publication(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[], timestamptz, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.pending_file_states(text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_audit(text, bigint, bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_finding_events(bigint[]) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.record_file_states(bigint, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text, text[], text[], jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.record_merges(text, jsonb) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.renew_task_lease(bigint, text, interval) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.set_hygiene_mode(text, text, boolean) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text, integer, boolean, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__active_totals() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__paths_insert() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__paths_update() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__prepare_check() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_finding__settle_rechecks() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_merge__check_redelivery() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_merge__immutable() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.tg_merge__prepare_changes() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ledger._check_commit_sha(text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_merge_changes(text[], text[], text[], jsonb) TO ledger_admin, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_paths(jsonb) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_pattern(text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_resolved_when(jsonb, text, integer) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_scope(text, text) TO ledger_admin, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_time_bounds(timestamptz, text) TO ledger_admin, ledger_agent, ledger_reader, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._check_timestamp(timestamptz, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._commit_subject(text) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger._finding_touches(bigint, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger._pattern_traps(text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._recorded_merge(text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._scope_kept(text) TO ledger_admin, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._text_kept(text, integer) TO ledger_admin, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._token_chars() TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._unicode_class(text) TO ledger_admin, ledger_reader, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger._unquote_path(text, text) TO ledger_admin, ledger_reader, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.add_finding(text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.answer_recheck(bigint, boolean, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.claim_rechecks(text, text, integer, interval) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.claim_task(text, text, interval) TO ledger_agent;
GRANT EXECUTE ON FUNCTION ledger.import_finding(text, text, text, text[], text, text, text, text, text, text[], text[], timestamptz, text, text, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.lint_check(jsonb, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.pending_file_states(text) TO ledger_admin, ledger_reader, ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.read_audit(text, bigint, bigint) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_finding_events(bigint[]) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_findings(text, text[], interval, integer, text, integer, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.read_prompt_text(text, integer, text[], integer, interval, text, integer) TO ledger_admin, ledger_reader;
GRANT EXECUTE ON FUNCTION ledger.record_file_states(bigint, jsonb) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.record_merge(text, text, text[], text, text, timestamptz, text, text[], text[], jsonb) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.record_merges(text, jsonb) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.renew_task_lease(bigint, text, interval) TO ledger_agent;
GRANT EXECUTE ON FUNCTION ledger.replace_findings(text, text, text, jsonb, text, text, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.set_hygiene_mode(text, text, boolean) TO ledger_admin;
GRANT EXECUTE ON FUNCTION ledger.set_match_policy(text, text[], text[], boolean, text, integer, boolean, text, text) TO ledger_admin;
GRANT EXECUTE ON FUNCTION ledger.validate_check(jsonb, text) TO ledger_writer;
GRANT EXECUTE ON FUNCTION ledger.verify_finding(bigint, text, text, text) TO ledger_agent;
GRANT INSERT (scope) ON TABLE ledger.agent_task TO ledger_writer;
GRANT SELECT ON TABLE ledger.file_state_request TO ledger_admin, ledger_reader, ledger_writer;
GRANT INSERT (anchors, expects, observed_at, observed_at_precision, resolved_when, task_group) ON TABLE ledger.finding TO ledger_writer;
GRANT INSERT (scope) ON TABLE ledger.injection TO ledger_writer;
GRANT INSERT (added, deleted, hunks) ON TABLE ledger.merge TO ledger_writer;
GRANT SELECT ON TABLE ledger.pending_file_state TO ledger_admin, ledger_reader, ledger_writer;
GRANT SELECT ON TABLE ledger.recheck_request TO ledger_admin, ledger_reader, ledger_writer;
GRANT INSERT (line_context, touch_modes) ON TABLE ledger.scope TO ledger_admin;
GRANT UPDATE (line_context, touch_modes) ON TABLE ledger.scope TO ledger_admin;
GRANT SELECT ON TABLE ledger.scope_active_total TO ledger_admin, ledger_reader;
