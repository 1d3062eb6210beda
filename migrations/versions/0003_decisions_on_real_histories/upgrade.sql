-- 0003_decisions_on_real_histories: decisions on real histories

-- scope: the line rule's context (a constant default: no rewrite)
ALTER TABLE ledger.scope ADD COLUMN line_context integer NOT NULL DEFAULT 0;
ALTER TABLE ledger.scope ADD CONSTRAINT scope_line_context_check CHECK (line_context BETWEEN 0 AND 1000) NOT VALID;
ALTER TABLE ledger.scope VALIDATE CONSTRAINT scope_line_context_check;
COMMENT ON COLUMN ledger.scope.line_context IS
'Lines of context around a finding''s anchor within which a merge''s hunk counts as changing it (default 0: the hunk must change one of the anchored lines; on the 48 TODO lines of the real histories in docs/matching.md, a context of 3 lines retires 24 of them too early). 0 to 1000.';

-- merge: change kinds and hunks (NULL: unknown, so old merges keep their meaning)
ALTER TABLE ledger.merge ADD COLUMN added text[];
ALTER TABLE ledger.merge ADD COLUMN deleted text[];
ALTER TABLE ledger.merge ADD COLUMN hunks jsonb;
ALTER TABLE ledger.merge ADD CONSTRAINT merge_hunks_check CHECK (jsonb_typeof(hunks) = 'object') NOT VALID;
ALTER TABLE ledger.merge VALIDATE CONSTRAINT merge_hunks_check;
COMMENT ON COLUMN ledger.merge.added IS
'The paths the merge added (a subset of paths, normalised like them); NULL: unknown. A rename is its new path added and its old path deleted. Findings that expect a path present are retired only by a merge that adds it.';
COMMENT ON COLUMN ledger.merge.deleted IS
'The paths the merge deleted (a subset of paths, normalised like them), and directories (ending in /) that no longer exist after it, each holding one of paths; NULL: unknown. Findings that expect a path absent are retired only by a merge that deletes it.';
COMMENT ON COLUMN ledger.merge.hunks IS
'The changed lines per path, git''s @@ -a,b +c,d @@ of git diff -U0: {"<path>": [[old_start, old_count, new_start, new_count], ...]}, paths among paths, integers >= 0; NULL or a path left out: no line information for it (the file-level rule applies). Anchored findings on a path with hunks are superseded only when a hunk overlaps their lines; otherwise their anchors move.';

-- finding: causality, change kind, anchors, task group. observed_at's default
-- now() is stable, so it is evaluated once: existing rows read the time of
-- this upgrade without a rewrite (the causality rule compares merges with
-- least(observed_at, created_at), which is created_at for them).
ALTER TABLE ledger.finding ADD COLUMN observed_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE ledger.finding ADD COLUMN expects text NOT NULL DEFAULT 'change';
ALTER TABLE ledger.finding ADD COLUMN anchors jsonb;
ALTER TABLE ledger.finding ADD COLUMN task_group text;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_expects_check CHECK (expects IN ('change', 'present', 'absent')) NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_expects_check;
ALTER TABLE ledger.finding ADD CONSTRAINT finding_anchors_check CHECK (jsonb_typeof(anchors) = 'object') NOT VALID;
ALTER TABLE ledger.finding VALIDATE CONSTRAINT finding_anchors_check;
COMMENT ON COLUMN ledger.finding.observed_at IS
'When the problem was observed (default: when the row was written; importers take it from the file''s date). A merge whose merged_at is before least(observed_at, created_at) never supersedes the finding: it is audited not_before_observed. Rows written before this column existed read the time of the upgrade, so for them the rule uses created_at.';
COMMENT ON COLUMN ledger.finding.expects IS
'What change resolves the finding: change (default: a merge touching a path it references, or its anchored lines), present (it says a path is missing: a merge that adds the path, or a file under the directory), absent (it says a path should not exist: a merge that deletes it). A merge that does not say what it added or deleted only records a candidate for present and absent.';
COMMENT ON COLUMN ledger.finding.anchors IS
'Line anchors, {"<path>": [first_line, last_line]} (1-based, inclusive), taken from paths written src/a.py:42 (42-42), src/a.py:42:7 (42-42) or src/a.py:40-48 (40-48); paths holds the bare path. NULL: no anchor (the file-level rule). A merge with hunks for an anchored path supersedes the finding only when a hunk overlaps the range (within the scope''s line_context) and otherwise moves the range by the lines its hunks added or removed above it (audited anchor_moved).';
COMMENT ON COLUMN ledger.finding.task_group IS
'The task group the finding was generated for (seed 000 Option C), e.g. 07_nightshift_standalone_cli:0; set explicitly, or taken from source when source is a node id ending in :<number>. NULL: unknown. ledger.read_prompt_findings(p_current_group, p_max_groups) keeps the findings at most p_max_groups groups back (the trailing number orders groups of the same prefix).';

\ir functions/_match_changes.sql
\ir functions/tg_finding__prepare.sql



\ir functions/_match_changes.sql
\ir functions/tg_finding__prepare.sql
DROP FUNCTION ledger.add_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text);
\ir functions/add_finding.sql
DROP FUNCTION ledger.record_merge(p_scope text, p_commit_sha text, p_paths text[], p_message text, p_node_id text, p_merged_at timestamptz, p_branch text);
\ir functions/record_merge.sql
DROP FUNCTION ledger.read_audit(p_scope text, p_finding_id bigint, p_merge_id bigint);
\ir functions/read_audit.sql
DROP FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text);
\ir functions/set_hygiene_mode.sql
DROP FUNCTION ledger.report_finding(p_scope text, p_finding_key text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_source text, p_review_run text);
\ir functions/report_finding.sql
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer);
\ir functions/read_prompt_findings.sql
\ir functions/_object_ends.sql
\ir functions/_message_segments.sql
DROP FUNCTION ledger._message_tokens(p_message text);
\ir functions/_message_tokens.sql
\ir functions/_match_message.sql
DROP FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text);
\ir functions/_merge_decisions.sql
\ir functions/tg_scope__prepare_policy.sql
\ir functions/tg_merge__prepare_changes.sql
DROP FUNCTION ledger.import_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_slug text, p_strong_keywords text[], p_tags text[]);
\ir functions/import_finding.sql
DROP FUNCTION ledger.set_match_policy(p_scope text, p_enabled_rules text[], p_path_supersede_kinds text[], p_slug_mention_resolves boolean, p_default_branch text);
\ir functions/set_match_policy.sql
\ir functions/_apply_merge.sql
\ir functions/reconcile.sql
\ir triggers/finding___100_prepare.sql
\ir triggers/merge___120_changes.sql
\ir privileges.sql
