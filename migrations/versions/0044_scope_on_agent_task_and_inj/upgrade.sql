-- 0044_scope_on_agent_task_and_inj: scope on agent_task and injection

\set ON_ERROR_STOP on
DO $ledger_revision_guard$
DECLARE
    v_at text[] := ARRAY[]::text[];
BEGIN
    IF pg_catalog.to_regclass('ledger.alembic_version') IS NOT NULL THEN
        EXECUTE 'SELECT coalesce(pg_catalog.array_agg(version_num ORDER BY version_num), ARRAY[]::text[])'
             ' FROM ledger.alembic_version' INTO v_at;
    END IF;
    IF v_at IS DISTINCT FROM ARRAY['0043_bounded_check_patterns']::text[] THEN
        RAISE EXCEPTION 'upgrade.sql of 0044_scope_on_agent_task_and_inj expects the database at 0043_bounded_check_patterns, '
                        'but it is at %: nothing of it was applied',
            CASE WHEN pg_catalog.cardinality(v_at) = 0 THEN 'no recorded version'
                 ELSE pg_catalog.array_to_string(v_at, ', ') END
            USING ERRCODE = 'LD502',
                  HINT = 'apply only the revisions after the one the database is at, each followed by '
                         'alembic stamp <revision> (docs/dba.md)';
    END IF;
END
$ledger_revision_guard$;

ALTER TABLE ledger.agent_task ADD COLUMN scope text;
UPDATE ledger.agent_task t SET scope = i.scope FROM ledger.issue i WHERE i.id = t.issue_id;
ALTER TABLE ledger.agent_task ALTER COLUMN scope SET NOT NULL;
ALTER TABLE ledger.agent_task ADD CONSTRAINT agent_task_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope) NOT VALID;
ALTER TABLE ledger.agent_task VALIDATE CONSTRAINT agent_task_scope_fkey;

-- indexes/agent_task_scope_idx.sql: built CONCURRENTLY, see concurrently.sql
ALTER TABLE ledger.injection ADD COLUMN scope text;
UPDATE ledger.injection j SET scope = f.scope FROM ledger.finding f WHERE f.id = j.finding_id;
ALTER TABLE ledger.injection ALTER COLUMN scope SET NOT NULL;
ALTER TABLE ledger.injection ADD CONSTRAINT injection_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope) NOT VALID;
ALTER TABLE ledger.injection VALIDATE CONSTRAINT injection_scope_fkey;

-- indexes/injection_scope_idx.sql: built CONCURRENTLY, see concurrently.sql
\ir functions/tg_agent_task__prepare.sql
\ir functions/tg_injection__prepare.sql
COMMENT ON COLUMN ledger.agent_task.scope IS
'The scope of the task''s issue (ledger.issue.scope), set by the _100_prepare trigger from issue_id: a writer need not send it, and one that sends another scope than the issue''s is refused (LD003). Follows issue_id while the task is queued.';
COMMENT ON COLUMN ledger.injection.scope IS
'The scope of the injected finding (ledger.finding.scope), set by the _100_prepare trigger from finding_id: a writer need not send it, and one that sends another scope than the finding''s is refused (LD003).';
GRANT INSERT (scope) ON TABLE ledger.agent_task TO ledger_writer;
GRANT INSERT (scope) ON TABLE ledger.injection TO ledger_writer;
