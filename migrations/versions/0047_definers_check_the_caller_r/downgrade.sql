-- 0047_definers_check_the_caller_r undone: the frozen state before it

DROP FUNCTION ledger._report_finding(text, text, text, text, text[], text, text, text, text, timestamptz, text, text, jsonb, text);
DROP FUNCTION ledger._require_role(name, text);
\ir ../0020_task_transitions_one_helper/functions/start_task.sql
\ir ../0020_task_transitions_one_helper/functions/complete_task.sql
\ir ../0020_task_transitions_one_helper/functions/fail_task.sql
\ir ../0020_task_transitions_one_helper/functions/cancel_task.sql
\ir ../0020_task_transitions_one_helper/functions/requeue_task.sql
\ir ../0002_harden_hostile_input/functions/dismiss_finding.sql
\ir ../0001_baseline/functions/restore_finding.sql
\ir ../0022_prompt_read_at_scale_per_sc/functions/reconcile.sql
\ir ../0003_decisions_on_real_histories/functions/record_merge.sql
\ir ../0017_record_merges_row_index/functions/record_merges.sql
\ir ../0040_sarif_suppressions_and_line/functions/report_finding.sql
\ir ../0023_finding_checks_file_state_r/functions/import_finding.sql
\ir ../0036_rechecks_settle_and_file_st/functions/record_file_states.sql
\ir ../0040_sarif_suppressions_and_line/functions/replace_findings.sql
\ir ../0036_rechecks_settle_and_file_st/functions/claim_rechecks.sql
\ir ../0036_rechecks_settle_and_file_st/functions/answer_recheck.sql
\ir ../0042_touches_count_after_a_resto/functions/verify_finding.sql
\ir ../0038_check_dialects_and_checks_l/functions/lint_check.sql
\ir ../0039_policy_kind_warning_and_tas/functions/claim_task.sql
\ir ../0039_policy_kind_warning_and_tas/functions/renew_task_lease.sql
COMMENT ON FUNCTION ledger.record_file_states(bigint, jsonb) IS
'Answer a merge''s file-state requests: states {"<path>": "<file text>" | null (absent)} at its commit; a directory key "pkg/" with any string: a file under it. Settles each concerned finding in merge order (it retires at the first merge whose tree makes its check hold, rule check). Idempotent; any order. (merge_id bigint, states jsonb) -> TABLE(finding_id bigint, outcome text: held | failed | moot | overruled | error | waiting | pending, part text). Limits: 1 MiB per file text, 10000 paths. SECURITY DEFINER. Raises LD001, LD002, LD003 (not an object, not a string or null, a path not asked for, two keys naming one path), LD004, LD005 (unknown merge), LD104 (a path answered before with another state; a text for a path the merge decided present is that state), LD401; nothing written on error.';
