-- 0002_harden_hostile_input: harden hostile input

-- tables/merge.sql: the new comment; its index merge_scope_commit_sha_c_idx is built in concurrently.sql.
COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique, and an abbreviated sha is the same commit: redeliver with INSERT ... ON CONFLICT DO NOTHING; a redelivery with other paths, message or branch fails (LD007). Immutable once processed: every UPDATE fails (LD006). Inserting a row supersedes findings (trigger _200_supersede).';

\ir functions/_unicode_class.sql
\ir functions/_check_scope.sql
\ir functions/_check_timestamp.sql
\ir functions/_unquote_path.sql
\ir functions/normalize_path.sql
\ir functions/normalize_paths.sql
\ir functions/_recorded_merge.sql
\ir functions/tg_scope__prepare.sql
\ir functions/tg_finding__prepare.sql
\ir functions/tg_merge__prepare.sql
\ir functions/record_merge.sql
\ir functions/tg_issue__prepare.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/_check_json_shape.sql
\ir functions/replace_findings.sql
\ir functions/dismiss_finding.sql
\ir functions/tg_supersession__notify.sql
\ir functions/read_finding_events.sql
\ir functions/tg_injection__prepare.sql
\ir functions/read_prompt_findings.sql
\ir functions/_evidence_token.sql
\ir functions/_file_slug.sql
\ir functions/_title_sig.sql
\ir functions/_evidence_keys.sql
\ir functions/_message_tokens.sql
\ir functions/_match_message.sql
\ir functions/_merge_decisions.sql
\ir functions/tg_finding__prepare_evidence.sql
\ir functions/tg_scope__prepare_policy.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/tg_merge__immutable.sql
\ir functions/workspace_scope.sql
\ir functions/_revert_targets.sql
\ir triggers/merge___010_immutable.sql
\ir triggers/merge___120_redelivery.sql
\ir privileges.sql
