-- 0002_harden_hostile_input undone: restores the frozen files it replaced

DROP TRIGGER _120_redelivery ON ledger.merge;
DROP TRIGGER _010_immutable ON ledger.merge;
DROP FUNCTION ledger.tg_merge__immutable();
DROP FUNCTION ledger.tg_merge__check_redelivery();
DROP FUNCTION ledger.read_finding_events(p_audit_ids bigint[]);
DROP FUNCTION ledger._check_json_shape(p_value jsonb, p_field text, p_shape jsonb);
DROP FUNCTION ledger._recorded_merge(p_scope text, p_commit_sha text);
DROP FUNCTION ledger._unquote_path(p_quoted text, p_field text);
DROP FUNCTION ledger._check_timestamp(p_value timestamptz, p_field text);
DROP FUNCTION ledger._check_scope(p_value text, p_field text);
DROP FUNCTION ledger._unicode_class(p_class text);
-- tables/merge.sql: the earlier comment, and without merge_scope_commit_sha_c_idx (dropped in this
-- transaction, so that a downgrade that fails changes nothing; bounded by lock_timeout).
COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique: redeliver with INSERT ... ON CONFLICT DO NOTHING. Inserting a row supersedes findings (trigger _200_supersede).';
DROP INDEX IF EXISTS ledger.merge_scope_commit_sha_c_idx;


\ir ../0001_baseline/functions/normalize_path.sql
\ir ../0001_baseline/functions/normalize_paths.sql
\ir ../0001_baseline/functions/tg_scope__prepare.sql
\ir ../0001_baseline/functions/tg_finding__prepare.sql
\ir ../0001_baseline/functions/tg_merge__prepare.sql
\ir ../0001_baseline/functions/record_merge.sql
\ir ../0001_baseline/functions/tg_issue__prepare.sql
\ir ../0001_baseline/functions/tg_agent_task__prepare.sql
\ir ../0001_baseline/functions/tg_finding__lifecycle.sql
\ir ../0001_baseline/functions/replace_findings.sql
\ir ../0001_baseline/functions/dismiss_finding.sql
\ir ../0001_baseline/functions/tg_supersession__notify.sql
\ir ../0001_baseline/functions/tg_injection__prepare.sql
\ir ../0001_baseline/functions/read_prompt_findings.sql
\ir ../0001_baseline/functions/_evidence_token.sql
\ir ../0001_baseline/functions/_file_slug.sql
\ir ../0001_baseline/functions/_title_sig.sql
\ir ../0001_baseline/functions/_evidence_keys.sql
\ir ../0001_baseline/functions/_message_tokens.sql
\ir ../0001_baseline/functions/_match_message.sql
\ir ../0001_baseline/functions/_merge_decisions.sql
\ir ../0001_baseline/functions/tg_finding__prepare_evidence.sql
\ir ../0001_baseline/functions/tg_scope__prepare_policy.sql
\ir ../0001_baseline/functions/workspace_scope.sql
\ir ../0001_baseline/functions/_revert_targets.sql
\ir ../0001_baseline/privileges.sql

-- the evidence index again, with the restored lower-casing of _evidence_keys,
-- _evidence_token and _title_sig (a SHARE lock on ledger.finding while it builds)
REINDEX INDEX ledger.finding_active_evidence_idx;
