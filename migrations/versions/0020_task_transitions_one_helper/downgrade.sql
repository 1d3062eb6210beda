-- 0020_task_transitions_one_helper undone: restores the frozen files it replaced

DROP FUNCTION ledger.claim_task(p_runtime_id text, p_agent_id text);
DROP FUNCTION ledger._set_task_status(p_task_id bigint, p_status text, p_session_id text, p_failure_reason text);
DROP FUNCTION ledger._scoped_evidence_keys(p_scope text, p_keys text[]);
\ir ../0013_claim_reads_the_task_once/functions/claim_task.sql
\ir ../0001_baseline/functions/start_task.sql
\ir ../0001_baseline/functions/complete_task.sql
\ir ../0001_baseline/functions/fail_task.sql
\ir ../0001_baseline/functions/cancel_task.sql
\ir ../0001_baseline/functions/requeue_task.sql
\ir ../0007_merge_trigger_phase_2/functions/_match_message.sql
\ir ../0007_merge_trigger_phase_2/functions/_match_paths.sql
\ir ../0013_claim_reads_the_task_once/functions/_resumed_task.sql
\ir ../0007_merge_trigger_phase_2/functions/_scoped_paths.sql
\ir ../0004_perf_import_and_claim/functions/_write_issue_snapshot.sql
COMMENT ON COLUMN ledger.scope.slug_mention_resolves IS
'When true, a bare mention of a finding''s slug or file name resolves it (seed 001 rule i); default false: only a resolution verb does.';
COMMENT ON COLUMN ledger.finding.superseded_by IS
'Who retired the finding: the superseding merge''s node_id (seed 000''s marker), or its commit sha when it has none.';
COMMENT ON COLUMN ledger.finding.task_group IS
'The task group the finding was generated for (seed 000 Option C), e.g. 07_nightshift_standalone_cli:0; set explicitly, or taken from source when source is a node id ending in :<number>. NULL: unknown. ledger.read_prompt_findings(p_current_group, p_max_groups) keeps the findings at most p_max_groups groups back (the trailing number orders groups of the same prefix).';
COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the superseded_by IS NULL filter of seed 000. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the states of issue 5. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
COMMENT ON FUNCTION ledger._apply_revert(bigint) IS
'Revert rule of issue 5 for one merge (run by the _200_supersede trigger after _apply_merge, and by reconcile): a message "This reverts commit <sha>." naming a merge of the same scope reopens the findings that merge superseded and still stand superseded by it (audit reopened, rule revert); dismissed or since re-superseded ones are audited not_reopened, an unknown sha revert_unknown; dry: would_reopen; off: nothing. Findings locked in one id-ordered pass FOR NO KEY UPDATE. (merge_id bigint) -> void. Raises nothing.';
\ir ../0018_prefilter_splits_tokens/privileges.sql
