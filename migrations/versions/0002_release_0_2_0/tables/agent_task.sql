CREATE TABLE ledger.agent_task (
    id                  bigint GENERATED ALWAYS AS IDENTITY,
    issue_id            bigint NOT NULL,
    agent_id            text NOT NULL,
    runtime_id          text NOT NULL,
    status              text NOT NULL DEFAULT 'queued',
    session_id          text,
    rerun_of_task_id    bigint,
    force_fresh_session boolean NOT NULL DEFAULT false,
    failure_reason      text,
    dispatch_count      integer NOT NULL DEFAULT 0,
    created_at          timestamptz NOT NULL DEFAULT now(),
    dispatched_at       timestamptz,
    started_at          timestamptz,
    completed_at        timestamptz,
    issue_snapshot      jsonb,
    lease_expires_at    timestamptz,
    scope               text NOT NULL,
    CONSTRAINT agent_task_pkey PRIMARY KEY (id),
    CONSTRAINT agent_task_issue_id_fkey FOREIGN KEY (issue_id) REFERENCES ledger.issue (id),
    CONSTRAINT agent_task_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT agent_task_rerun_of_task_id_fkey FOREIGN KEY (rerun_of_task_id) REFERENCES ledger.agent_task (id),
    CONSTRAINT agent_task_status_check
        CHECK (status IN ('queued', 'dispatched', 'running', 'completed', 'failed', 'cancelled')),
    CONSTRAINT agent_task_rerun_check CHECK (rerun_of_task_id <> id)
);

COMMENT ON TABLE ledger.agent_task IS
'One row per agent run on an issue. status: queued -> dispatched (ledger.claim_task) -> running -> completed | failed | cancelled; dispatched -> queued requeues a run that never started. session_id: the provider session (set by the claim to the session it resumes, updated by start/complete/fail). dispatch_count: the claim''s CAS token.';

COMMENT ON COLUMN ledger.agent_task.scope IS
'The scope of the task''s issue (ledger.issue.scope), set by the _100_prepare trigger from issue_id: a writer need not send it, and one that sends another scope than the issue''s is refused (LD003). Follows issue_id while the task is queued.';

COMMENT ON COLUMN ledger.agent_task.issue_snapshot IS
'The issue body AS THIS CLAIM SAW IT: {"v":1,"title_sha256":"<hex>","description_sha256":"<hex>"} (ledger.issue_snapshot). Hashes, never text: a comparison key. Written only by ledger.claim_task, under a CAS. Read back by a later claim only off the row whose session it resumes, and only when that row proves delivery (completed, started_at set). NULL (never claimed, or written before this column existed), another version or a row that does not parse mean "not compared", never "unchanged". No index: never a lookup key.';

COMMENT ON COLUMN ledger.agent_task.lease_expires_at IS
'Until when the runtime that claimed the task holds it (ledger.claim_task with p_lease; extended by ledger.renew_task_lease). NULL: claimed without a lease, held until the task ends. Once it has passed, a task still dispatched or running is claimable again: the claim that takes it over fails it with failure_reason lease_expired and dispatches a rerun of it. Written only by those two functions.';
