-- ledger.issue: an issue agents work on, written by services with plain
-- SQL. Claims hash title and description exactly as stored
-- (ledger.issue_snapshot).
CREATE TABLE ledger.issue (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    scope         text NOT NULL,
    title         text NOT NULL,
    description   text,
    status        text NOT NULL DEFAULT 'todo',
    assignee_type text,
    assignee_id   text,
    priority      text NOT NULL DEFAULT 'none',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT issue_pkey PRIMARY KEY (id),
    CONSTRAINT issue_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT issue_status_check
        CHECK (status IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'blocked', 'cancelled')),
    CONSTRAINT issue_priority_check CHECK (priority IN ('urgent', 'high', 'medium', 'low', 'none')),
    CONSTRAINT issue_assignee_check CHECK ((assignee_type IS NULL) = (assignee_id IS NULL)
                                           AND (assignee_type IS NULL OR assignee_type IN ('member', 'agent')))
);

CREATE INDEX issue_scope_idx ON ledger.issue (scope, id);

COMMENT ON TABLE ledger.issue IS
'An issue agents work on. Services create and update it with plain SQL; many writers touch it and none has to do anything for claim snapshots to stay correct. title and description are stored exactly as written (claims hash their bytes).';
