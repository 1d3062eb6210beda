-- 0044_scope_on_agent_task_and_inj: scope on agent_task and injection

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
