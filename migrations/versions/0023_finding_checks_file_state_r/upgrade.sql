-- 0023_finding_checks_file_state_r: finding checks, file-state requests, touch modes, recheck queue

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0022_prompt_read_at_scale_per_sc']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0023_finding_checks_file_state_r expects the database at 0022_prompt_read_at_scale_per_sc, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

ALTER TABLE ledger.scope ADD COLUMN touch_modes jsonb NOT NULL DEFAULT '{}';
ALTER TABLE ledger.scope ADD CONSTRAINT scope_touch_modes_check CHECK (jsonb_typeof(touch_modes) = 'object') NOT VALID;
ALTER TABLE ledger.scope VALIDATE CONSTRAINT scope_touch_modes_check;
COMMENT ON COLUMN ledger.scope.touch_modes IS
'What a touch that the path rule would take as resolving does to a finding without a check, per kind: {"<kind>": "retire" | "recheck" | "flag", "*": ...}. retire: the path rule supersedes it; recheck: a recheck request (ledger.recheck_request) is opened instead and a verifier decides; flag: the finding stays and the audit records flagged (read_prompt_findings lists the merges as touched_by). A kind not listed takes "*", else ledger._default_touch_mode() (retire). Set with ledger.set_match_policy(p_touch, p_touch_kind).';

ALTER TABLE ledger.finding ADD COLUMN resolved_when jsonb;
ALTER TABLE ledger.finding ADD COLUMN observed_at_precision text NOT NULL DEFAULT 'instant';
ALTER TABLE ledger.finding ADD CONSTRAINT finding_resolved_when_check CHECK (jsonb_typeof(resolved_when) = 'object') NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_resolved_when_check;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_observed_at_precision_check CHECK (observed_at_precision IN ('instant', 'day')) NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_observed_at_precision_check;
COMMENT ON COLUMN ledger.finding.resolved_when IS
'The check that proves the finding resolved, evaluated on the tree of each merge that touches a path it names (NULL: no check, the touch rules apply). Closed grammar, one key per node: {"path_exists": "a/b.py" | "pkg/"}, {"path_absent": ...} (a trailing / is a directory: at least one file under it), {"file_contains": {"path": "f.py", "pattern": "REGEX"}} (the file exists and its text matches REGEX with ~), {"file_lacks": {"path": "f.py", "pattern": "REGEX"}} (absent or not matching), {"all": [...]}, {"any": [...]} (non-empty). At most depth 8, 64 nodes, a pattern of 1000 characters; paths normalised as finding.paths, and every path a check names is added to paths if absent (so the path index finds the finding on a touch). Validated on write by ledger._check_resolved_when (LD003 / LD004 naming the part, e.g. finding.resolved_when.all[1].file_contains.pattern). A merge never retires a checked finding by a touch (path, line or expects rule) nor by a message: a touch of a path the check names, or a message naming the finding''s key or slug with a resolution verb, opens a file-state request (ledger.file_state_request), and the finding retires, rule check, at the first such merge whose tree makes the check hold.';
COMMENT ON COLUMN ledger.finding.observed_at_precision IS
'How precisely observed_at is known: instant (default) or day (only its UTC date is known; importers write a date-only value as that day''s end, 23:59:59.999999 UTC). With day, naming evidence (the finding''s own key or slug governed by a resolution verb: a commit cannot name a slug that did not exist yet) passes the causality gate for a merge on or after the start of that UTC day; every other rule (path, line, expects, keyword, title, check) compares with least(observed_at, created_at) as for instant.';

\ir tables/file_state_request.sql
\ir tables/recheck_request.sql
\ir views/pending_file_state.sql
\ir functions/_check_resolved_when.sql
\ir functions/_check_paths.sql
\ir functions/_eval_check.sql
\ir functions/_merge_file_states.sql
\ir functions/_default_touch_mode.sql
\ir functions/_touch_mode.sql
\ir functions/tg_finding__prepare_check.sql
\ir functions/tg_merge__supersede.sql
DROP FUNCTION ledger.add_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_observed_at timestamptz, p_expects text, p_task_group text);
\ir functions/add_finding.sql
DROP FUNCTION ledger.report_finding(p_scope text, p_finding_key text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_source text, p_review_run text, p_observed_at timestamptz, p_expects text, p_task_group text);
\ir functions/report_finding.sql
\ir functions/read_prompt_findings.sql
\ir functions/read_history.sql
DROP FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text, p_merged_at timestamptz, p_added text[], p_deleted text[], p_hunks jsonb);
\ir functions/_merge_decisions.sql
\ir functions/tg_scope__prepare_policy.sql
DROP FUNCTION ledger.import_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_slug text, p_strong_keywords text[], p_tags text[], p_observed_at timestamptz, p_expects text, p_task_group text);
\ir functions/import_finding.sql
DROP FUNCTION ledger.set_match_policy(p_scope text, p_enabled_rules text[], p_path_supersede_kinds text[], p_slug_mention_resolves boolean, p_default_branch text, p_line_context integer, p_create boolean);
\ir functions/set_match_policy.sql
\ir functions/_settle_checks.sql
DROP FUNCTION ledger._apply_merge(p_merge_id bigint);
\ir functions/_apply_merge.sql
\ir functions/record_file_states.sql
\ir functions/claim_rechecks.sql
\ir functions/answer_recheck.sql
\ir triggers/finding___120_check.sql
CREATE POLICY scope_isolation ON ledger.file_state_request
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));
CREATE POLICY scope_isolation ON ledger.recheck_request
    USING (scope = ANY ((SELECT ledger._visible_scopes())::text[]))
    WITH CHECK (scope = ANY ((SELECT ledger._visible_scopes())::text[]));

\ir privileges.sql
