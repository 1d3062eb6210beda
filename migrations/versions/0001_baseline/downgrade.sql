-- Downgrade below the baseline: drops every object of the ledger schema but
-- alembic's version table, then the four roles where nothing else uses them.
--
-- Refuses while the ledger holds data (downgrade_guard.sql: SQLSTATE LD501), unless
-- the setting ledger.allow_data_loss is 'true'.
\ir downgrade_guard.sql

-- In dependency order, never CASCADE (an object of someone else's that
-- depends on the ledger makes the downgrade fail instead of vanishing):
-- the functions whose arguments or result are ledger row types, the views,
-- the tables (their policies, triggers, indexes and constraints go with
-- them), then the rest of the baseline's functions, each named: a function
-- of someone else's in the schema stays.
DO $drop$
DECLARE
    v_function regprocedure;
    v_baseline text[] := ARRAY[
        'ledger._apply_merge(bigint)',
        'ledger._apply_revert(bigint)',
        'ledger._check_scope_access(text,text)',
        'ledger._check_task_transition(bigint,text,text)',
        'ledger._check_text(text,text,boolean,integer,boolean)',
        'ledger._ensure_scope(text)',
        'ledger._evidence_keys(text,text,text,text[],text)',
        'ledger._evidence_token(text)',
        'ledger._file_slug(text)',
        'ledger._finding_state(timestamp with time zone,timestamp with time zone)',
        'ledger._match_message(text,text)',
        'ledger._match_paths(text,text[])',
        'ledger._merge_decisions(text,text,text[],text)',
        'ledger._message_segments(text)',
        'ledger._message_tokens(text)',
        'ledger._normalize_branch(text,text)',
        'ledger._reopen_finding(ledger.finding,text,text,text,text,text,bigint,jsonb)',
        'ledger._resumed_task(bigint)',
        'ledger._revert_targets(text,text,bigint)',
        'ledger._scope_visible(text)',
        'ledger._scoped_paths(text,text[])',
        'ledger._severity_rank(text)',
        'ledger._significant(text)',
        'ledger._snapshot_changes(jsonb,jsonb)',
        'ledger._snapshot_version()',
        'ledger._title_sig(text)',
        'ledger._token_regex(boolean)',
        'ledger._visible_scopes()',
        'ledger._words(text)',
        'ledger._write_issue_snapshot(bigint,integer)',
        'ledger.active_findings(text)',
        'ledger.add_finding(text,text,text,text[],text,text,text,text)',
        'ledger.add_issue(text,text,text,text,text,text,text)',
        'ledger.cancel_task(bigint,text)',
        'ledger.claim_task(text,text)',
        'ledger.complete_task(bigint,text)',
        'ledger.disable_scope_rls()',
        'ledger.dismiss_finding(bigint,text,text,text)',
        'ledger.enable_scope_rls()',
        'ledger.enqueue_task(bigint,text,text,bigint,boolean)',
        'ledger.fail_task(bigint,text,text)',
        'ledger.import_finding(text,text,text,text[],text,text,text,text,text,text[],text[])',
        'ledger.issue_snapshot(text,text,integer)',
        'ledger.measure_convergence(text)',
        'ledger.normalize_path(text,text)',
        'ledger.normalize_paths(text[],text,integer)',
        'ledger.read_audit(text,bigint,bigint)',
        'ledger.read_finding(bigint)',
        'ledger.read_history(bigint)',
        'ledger.read_injections(text,bigint)',
        'ledger.read_prompt_findings(text,text[],interval,integer)',
        'ledger.reconcile(text)',
        'ledger.record_injection(text,bigint[])',
        'ledger.record_merge(text,text,text[],text,text,timestamp with time zone,text)',
        'ledger.replace_findings(text,text,text,jsonb,text)',
        'ledger.report_finding(text,text,text,text,text[],text,text,text,text)',
        'ledger.requeue_task(bigint)',
        'ledger.restore_finding(bigint,text,text)',
        'ledger.set_hygiene_mode(text,text)',
        'ledger.set_match_policy(text,text[],text[],boolean,text)',
        'ledger.start_task(bigint,text)',
        'ledger.tg_agent_task__guard_snapshot()',
        'ledger.tg_agent_task__prepare()',
        'ledger.tg_finding__forbid_delete()',
        'ledger.tg_finding__lifecycle()',
        'ledger.tg_finding__prepare()',
        'ledger.tg_finding__prepare_evidence()',
        'ledger.tg_injection__prepare()',
        'ledger.tg_issue__prepare()',
        'ledger.tg_merge__prepare()',
        'ledger.tg_merge__prepare_branch()',
        'ledger.tg_merge__revert()',
        'ledger.tg_merge__supersede()',
        'ledger.tg_scope__prepare()',
        'ledger.tg_scope__prepare_policy()',
        'ledger.tg_scoped__check_access()',
        'ledger.tg_supersession__append_only()',
        'ledger.tg_supersession__notify()',
        'ledger.workspace_scope(text)'
    ];
BEGIN
    FOR v_function IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
         WHERE p.oid::regprocedure::text = ANY (v_baseline)
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_type t
                        WHERE t.typnamespace = 'ledger'::regnamespace
                          AND (t.oid = p.prorettype OR t.oid = ANY (p.proargtypes::oid[])))
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_function);
    END LOOP;
    DROP VIEW ledger.finding_lifecycle, ledger.active_finding;
    DROP TABLE ledger.injection, ledger.supersession, ledger.agent_task, ledger.issue, ledger.finding,
               ledger.merge, ledger.scope, ledger.poisoned_failure_reason, ledger.retired_session;
    FOR v_function IN
        SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p WHERE p.oid::regprocedure::text = ANY (v_baseline)
    LOOP
        EXECUTE format('DROP FUNCTION %s', v_function);
    END LOOP;
END
$drop$;

-- The four roles: their privileges on the schema go, then each role that
-- nothing else uses. A role another role is a member of is kept; the
-- migration role's own membership does not count (PostgreSQL 16+ makes a
-- CREATEROLE role that creates a role a member with ADMIN OPTION).
DO $roles$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['ledger_writer', 'ledger_reader', 'ledger_agent', 'ledger_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolname = v_role) THEN
            CONTINUE;
        END IF;
        EXECUTE format('REVOKE ALL ON SCHEMA ledger FROM %I', v_role);
        IF EXISTS (SELECT 1 FROM pg_catalog.pg_auth_members a
                     JOIN pg_catalog.pg_roles r ON r.oid = a.roleid
                     JOIN pg_catalog.pg_roles m ON m.oid = a.member
                    WHERE r.rolname = v_role AND m.rolname <> current_user) THEN
            RAISE NOTICE 'role % kept: other roles are members of it', v_role;
            CONTINUE;
        END IF;
        BEGIN
            EXECUTE format('DROP ROLE %I', v_role);
        EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
            RAISE NOTICE 'role % kept: %', v_role, SQLERRM;
        END;
    END LOOP;
END
$roles$;
