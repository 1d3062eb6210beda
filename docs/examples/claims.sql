-- The claims walkthrough of docs/claims.md; errors are part of it, so no ON_ERROR_STOP
-- (run: psql -X -a -f docs/examples/claims.sql, from the checkout, on a freshly migrated database).
\set SHOW_CONTEXT never
-- A service creates an issue and queues an agent run (plain INSERTs).
INSERT INTO ledger.issue (scope, title, description, assignee_type, assignee_id)
VALUES ('web', 'Fix login', 'Users cannot log in', 'agent', 'agent-a')
RETURNING id, status, priority;
INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id)
VALUES (1, 'agent-a', 'rt-1') RETURNING id, status;
-- The runtime claims the next task: nothing to resume yet, so no delta.
SELECT task_id, resume_session_id, issue_status, issue_assignee_id,
       issue_state_delta_known, issue_changed_fields, delta_basis
  FROM ledger.claim_task(p_runtime_id => 'rt-1');
-- The agent starts (in its provider session), does its bookkeeping, delivers.
SELECT status, session_id FROM ledger.start_task(p_task_id => 1, p_session_id => 'sess-1');
UPDATE ledger.issue SET status = 'in_progress' WHERE id = 1;
UPDATE ledger.issue SET status = 'in_review' WHERE id = 1;
SELECT status, started_at IS NOT NULL AS started FROM ledger.complete_task(p_task_id => 1);
-- What the claim recorded: hashes of the issue as it saw it, never the text.
SELECT jsonb_pretty(issue_snapshot) FROM ledger.agent_task WHERE id = 1;
-- A follow-up (a reviewer commented): same session, body unchanged.
INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (1, 'agent-a', 'rt-1');
SELECT task_id, resume_session_id, anchor_task_id, issue_status,
       issue_state_delta_known, issue_changed_fields, delta_basis
  FROM ledger.claim_task(p_runtime_id => 'rt-1');
SELECT status FROM ledger.start_task(p_task_id => 2);
SELECT status FROM ledger.complete_task(p_task_id => 2);
-- Someone edits the description; the next follow-up is told exactly that.
UPDATE ledger.issue SET description = 'Users cannot log in with SSO' WHERE id = 1;
INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (1, 'agent-a', 'rt-1');
SELECT task_id, resume_session_id, anchor_task_id, issue_status,
       issue_state_delta_known, issue_changed_fields, delta_basis
  FROM ledger.claim_task(p_runtime_id => 'rt-1');
-- The run fails; a failure outside the poisoned set still hands back its session.
SELECT status, failure_reason FROM ledger.fail_task(p_task_id => 3, p_failure_reason => 'agent_crashed');
INSERT INTO ledger.agent_task (issue_id, agent_id, runtime_id) VALUES (1, 'agent-a', 'rt-1');
SELECT task_id, resume_session_id, resumed_task_id, anchor_task_id,
       issue_state_delta_known, issue_changed_fields, delta_basis
  FROM ledger.claim_task(p_runtime_id => 'rt-1');
-- Only the claim writes issue_snapshot, and the task machine is enforced for plain SQL too.
UPDATE ledger.agent_task SET issue_snapshot = NULL WHERE id = 1;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
UPDATE ledger.agent_task SET status = 'running' WHERE id = 3;
\echo SQLSTATE :LAST_ERROR_SQLSTATE
SELECT ledger.start_task(p_task_id => 99);
\echo SQLSTATE :LAST_ERROR_SQLSTATE
