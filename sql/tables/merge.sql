-- ledger.merge: one row per merge that landed in a scope. Inserting a row
-- (plain INSERT, multi-row INSERT, COPY or ledger.record_merge) runs the
-- merge triggers: _100_prepare validates and normalises, _200_supersede
-- supersedes the findings it resolves, _300_revert reopens what a reverted
-- merge retired. Redeliver with INSERT ... ON CONFLICT DO NOTHING.
CREATE TABLE ledger.merge (
    id          bigint GENERATED ALWAYS AS IDENTITY,
    scope       text NOT NULL,
    commit_sha  text NOT NULL,
    node_id     text,
    message     text NOT NULL DEFAULT '',
    paths       text[] NOT NULL DEFAULT '{}',
    merged_at   timestamptz NOT NULL DEFAULT now(),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    processed   boolean NOT NULL DEFAULT false,
    branch      text,
    CONSTRAINT merge_pkey PRIMARY KEY (id),
    CONSTRAINT merge_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT merge_scope_commit_sha_key UNIQUE (scope, commit_sha)
);

CREATE INDEX merge_unprocessed_idx ON ledger.merge (id) WHERE NOT processed;

COMMENT ON TABLE ledger.merge IS
'One row per merge that landed. paths: the files it touched (both sides of a rename). node_id: the session or node that produced it. (scope, commit_sha) is unique: redeliver with INSERT ... ON CONFLICT DO NOTHING. Inserting a row supersedes findings (trigger _200_supersede).';
COMMENT ON COLUMN ledger.merge.processed IS
'true once the row went through the ledger triggers; false for rows applied with session_replication_role = replica.';
COMMENT ON COLUMN ledger.merge.branch IS
'The branch the merge landed on (refs/heads/ dropped); NULL: unknown, never skipped.';
