-- 0003_decisions_on_real_histories undone: restores the frozen files it replaced

DROP TRIGGER _120_changes ON ledger.merge;
DROP FUNCTION ledger.set_match_policy(p_scope text, p_enabled_rules text[], p_path_supersede_kinds text[], p_slug_mention_resolves boolean, p_default_branch text, p_line_context integer, p_create boolean);
DROP FUNCTION ledger.import_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_slug text, p_strong_keywords text[], p_tags text[], p_observed_at timestamptz, p_expects text, p_task_group text);
DROP FUNCTION ledger.tg_merge__prepare_changes();
DROP FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text, p_merged_at timestamptz, p_added text[], p_deleted text[], p_hunks jsonb);
DROP FUNCTION ledger._message_tokens(p_message text);
DROP FUNCTION ledger._object_ends(p_gap text);
DROP FUNCTION ledger.read_prompt_findings(p_scope text, p_kinds text[], p_max_age interval, p_max_chars integer, p_current_group text, p_max_groups integer);
DROP FUNCTION ledger.report_finding(p_scope text, p_finding_key text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_source text, p_review_run text, p_observed_at timestamptz, p_expects text, p_task_group text);
DROP FUNCTION ledger.set_hygiene_mode(p_scope text, p_mode text, p_create boolean);
DROP FUNCTION ledger.read_audit(p_scope text, p_finding_id bigint, p_merge_id bigint);
DROP FUNCTION ledger.record_merge(p_scope text, p_commit_sha text, p_paths text[], p_message text, p_node_id text, p_merged_at timestamptz, p_branch text, p_added text[], p_deleted text[], p_hunks jsonb);
DROP FUNCTION ledger.add_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_observed_at timestamptz, p_expects text, p_task_group text);
DROP FUNCTION ledger._match_changes(p_scope text, p_paths text[], p_added text[], p_deleted text[], p_hunks jsonb, p_context integer);




\ir ../0002_harden_hostile_input/functions/tg_finding__prepare.sql
\ir ../0001_baseline/functions/add_finding.sql
\ir ../0002_harden_hostile_input/functions/record_merge.sql
\ir ../0001_baseline/functions/read_audit.sql
\ir ../0001_baseline/functions/set_hygiene_mode.sql
\ir ../0001_baseline/functions/report_finding.sql
\ir ../0002_harden_hostile_input/functions/read_prompt_findings.sql
\ir ../0001_baseline/functions/_message_segments.sql
\ir ../0002_harden_hostile_input/functions/_message_tokens.sql
\ir ../0002_harden_hostile_input/functions/_match_message.sql
\ir ../0002_harden_hostile_input/functions/_merge_decisions.sql
\ir ../0002_harden_hostile_input/functions/tg_scope__prepare_policy.sql
\ir ../0001_baseline/functions/import_finding.sql
\ir ../0001_baseline/functions/set_match_policy.sql
\ir ../0001_baseline/functions/_apply_merge.sql
\ir ../0001_baseline/functions/reconcile.sql
\ir ../0001_baseline/triggers/finding___100_prepare.sql
ALTER TABLE ledger.finding DROP COLUMN task_group;
ALTER TABLE ledger.finding DROP COLUMN anchors;
ALTER TABLE ledger.finding DROP COLUMN expects;
ALTER TABLE ledger.finding DROP COLUMN observed_at;

ALTER TABLE ledger.merge DROP COLUMN hunks;
ALTER TABLE ledger.merge DROP COLUMN deleted;
ALTER TABLE ledger.merge DROP COLUMN added;

ALTER TABLE ledger.scope DROP COLUMN line_context;
\ir ../0002_harden_hostile_input/privileges.sql
