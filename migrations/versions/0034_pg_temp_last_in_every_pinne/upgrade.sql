-- 0034_pg_temp_last_in_every_pinne: pg_temp last in every pinned search_path

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0033_drop_the_unused_scoped_evid']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0034_pg_temp_last_in_every_pinne expects the database at 0033_drop_the_unused_scoped_evid, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

\ir functions/_visible_scopes.sql
\ir functions/_check_text.sql
\ir functions/_check_scope.sql
\ir functions/_check_timestamp.sql
\ir functions/_check_time_bounds.sql
\ir functions/_check_commit_sha.sql
\ir functions/_ensure_scope.sql
\ir functions/_path_keys.sql
\ir functions/_unquote_path.sql
\ir functions/normalize_path.sql
\ir functions/normalize_paths.sql
\ir functions/_recorded_merge.sql
\ir functions/_match_changes.sql
\ir functions/_check_resolved_when.sql
\ir functions/_check_paths.sql
\ir functions/_eval_check.sql
\ir functions/_merge_file_states.sql
\ir functions/_default_touch_mode.sql
\ir functions/_touch_mode.sql
\ir functions/tg_scope__prepare.sql
\ir functions/tg_finding__prepare.sql
\ir functions/tg_finding__prepare_check.sql
\ir functions/tg_merge__prepare.sql
\ir functions/_insert_merges.sql
\ir functions/read_audit.sql
\ir functions/set_hygiene_mode.sql
\ir functions/active_findings.sql
\ir functions/_snapshot_version.sql
\ir functions/issue_snapshot.sql
\ir functions/_snapshot_changes.sql
\ir functions/_check_task_transition.sql
\ir functions/tg_issue__prepare.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/tg_agent_task__guard_snapshot.sql
\ir functions/_resumed_row.sql
\ir functions/_reopen_finding.sql
\ir functions/tg_finding__lifecycle.sql
\ir functions/tg_finding__forbid_delete.sql
\ir functions/_check_json_shape.sql
\ir functions/read_finding.sql
\ir functions/tg_supersession__notify.sql
\ir functions/read_finding_events.sql
\ir functions/tg_injection__prepare.sql
\ir functions/record_injection.sql
\ir functions/read_injections.sql
\ir functions/measure_convergence.sql
\ir functions/read_prompt_findings.sql
\ir functions/read_history.sql
\ir functions/_words.sql
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
\ir functions/tg_merge__prepare_branch.sql
\ir functions/tg_merge__check_redelivery.sql
\ir functions/tg_merge__immutable.sql
\ir functions/tg_merge__prepare_changes.sql
\ir functions/workspace_scope.sql
\ir functions/set_match_policy.sql
\ir functions/_scope_visible.sql
\ir functions/_check_scope_access.sql
\ir functions/tg_scoped__check_access.sql
\ir functions/tg_supersession__append_only.sql
\ir functions/_revert_targets.sql
\ir functions/_settle_checks.sql
\ir functions/_apply_merge.sql
\ir functions/_apply_revert.sql
\ir functions/_other_merge_of_commit.sql
\ir functions/enable_scope_rls.sql
\ir functions/disable_scope_rls.sql
