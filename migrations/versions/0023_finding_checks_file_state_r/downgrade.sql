-- 0023_finding_checks_file_state_r undone: restores the frozen files it replaced

-- Refuses while a column or table it drops holds data (downgrade_guard.sql:
-- SQLSTATE LD501), unless the setting ledger.allow_data_loss is 'true'.
\ir downgrade_guard.sql

DROP TRIGGER _120_check ON ledger.finding;
DROP FUNCTION ledger.answer_recheck(p_id bigint, p_resolved boolean, p_evidence text, p_verifier text);
DROP FUNCTION ledger.claim_rechecks(p_scope text, p_verifier text, p_max integer, p_lease interval);
DROP FUNCTION ledger.record_file_states(p_merge_id bigint, p_states jsonb);
DROP FUNCTION ledger._apply_merge(p_merge_id bigint, p_may_match boolean);
DROP FUNCTION ledger._settle_checks(p_finding_id bigint);
DROP FUNCTION ledger.set_match_policy(p_scope text, p_enabled_rules text[], p_path_supersede_kinds text[], p_slug_mention_resolves boolean, p_default_branch text, p_line_context integer, p_create boolean, p_touch text, p_touch_kind text);
DROP FUNCTION ledger.import_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_slug text, p_strong_keywords text[], p_tags text[], p_observed_at timestamptz, p_expects text, p_task_group text, p_resolved_when jsonb, p_observed_at_precision text);
DROP FUNCTION ledger._merge_decisions(p_scope text, p_message text, p_paths text[], p_branch text, p_merged_at timestamptz, p_added text[], p_deleted text[], p_hunks jsonb, p_may_match boolean);
DROP FUNCTION ledger.report_finding(p_scope text, p_finding_key text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_source text, p_review_run text, p_observed_at timestamptz, p_expects text, p_task_group text, p_resolved_when jsonb, p_observed_at_precision text);
DROP FUNCTION ledger.add_finding(p_scope text, p_title text, p_description text, p_paths text[], p_kind text, p_severity text, p_finding_key text, p_source text, p_observed_at timestamptz, p_expects text, p_task_group text, p_resolved_when jsonb, p_observed_at_precision text);
DROP FUNCTION ledger.tg_finding__prepare_check();
DROP FUNCTION ledger._touch_mode(p_touch_modes jsonb, p_kind text);
DROP FUNCTION ledger._default_touch_mode();
DROP FUNCTION ledger._merge_file_states(p_check_paths text[], p_paths text[], p_added text[], p_deleted text[]);
DROP FUNCTION ledger._eval_check(p_check jsonb, p_states jsonb);
DROP FUNCTION ledger._check_paths(p_check jsonb);
DROP FUNCTION ledger._check_resolved_when(p_check jsonb, p_field text, p_depth integer);
DROP VIEW ledger.pending_file_state;
\ir ../0011_statement_merge_trigger/functions/tg_merge__supersede.sql
\ir ../0003_decisions_on_real_histories/functions/add_finding.sql
\ir ../0003_decisions_on_real_histories/functions/report_finding.sql
\ir ../0022_prompt_read_at_scale_per_sc/functions/read_prompt_findings.sql
\ir ../0001_baseline/functions/read_history.sql
\ir ../0007_merge_trigger_phase_2/functions/_merge_decisions.sql
\ir ../0003_decisions_on_real_histories/functions/tg_scope__prepare_policy.sql
\ir ../0003_decisions_on_real_histories/functions/import_finding.sql
\ir ../0008_record_merges_in_batches/functions/set_match_policy.sql
\ir ../0011_statement_merge_trigger/functions/_apply_merge.sql
DROP POLICY IF EXISTS scope_isolation ON ledger.file_state_request;
DROP POLICY IF EXISTS scope_isolation ON ledger.recheck_request;

DROP TABLE ledger.recheck_request;
DROP TABLE ledger.file_state_request;
ALTER TABLE ledger.finding DROP COLUMN resolved_when;
ALTER TABLE ledger.finding DROP COLUMN observed_at_precision;

ALTER TABLE ledger.scope DROP COLUMN touch_modes;

\ir ../0022_prompt_read_at_scale_per_sc/privileges.sql
