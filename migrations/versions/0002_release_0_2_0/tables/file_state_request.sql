CREATE TABLE ledger.file_state_request (
    id           bigint GENERATED ALWAYS AS IDENTITY,
    scope        text NOT NULL,
    merge_id     bigint NOT NULL,
    finding_id   bigint NOT NULL,
    paths        text[] NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    states       jsonb,
    answered_at  timestamptz,
    outcome      text,
    part         text,
    CONSTRAINT file_state_request_pkey PRIMARY KEY (id),
    CONSTRAINT file_state_request_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT file_state_request_merge_id_fkey FOREIGN KEY (merge_id) REFERENCES ledger.merge (id),
    CONSTRAINT file_state_request_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id),
    CONSTRAINT file_state_request_merge_finding_key UNIQUE (merge_id, finding_id),
    CONSTRAINT file_state_request_outcome_check CHECK (outcome IN ('held', 'failed', 'moot', 'overruled', 'error')),
    CONSTRAINT file_state_request_states_check CHECK (jsonb_typeof(states) = 'object')
);

CREATE INDEX file_state_request_finding_idx ON ledger.file_state_request (finding_id, merge_id);

CREATE INDEX file_state_request_pending_idx ON ledger.file_state_request (scope, merge_id) WHERE answered_at IS NULL;

COMMENT ON TABLE ledger.file_state_request IS
'File-state requests of checked findings: one row per (merge_id, finding_id) a merge opened (it touched a path the finding''s resolved_when names, or its message names the finding with a resolution verb). Pending while answered_at IS NULL (ledger.pending_file_state lists them with the commit sha); answered by ledger.record_file_states. Settled in merge order: the finding retires at the first merge whose tree makes its check hold. Never hides a finding: a finding with pending requests stays active.';

COMMENT ON COLUMN ledger.file_state_request.paths IS
'The normalised paths whose state at the merge''s commit the check needs (ledger._check_paths of the finding''s resolved_when); a directory ends in /.';

COMMENT ON COLUMN ledger.file_state_request.states IS
'What was answered, {"<path>": "<file text>" | null} (null: absent; for a directory "pkg/" any string: at least one file under it); for a request the merge''s added/deleted decided, the states taken from the merge (true: the path exists, its text unknown). NULL while pending.';

COMMENT ON COLUMN ledger.file_state_request.answered_at IS
'When the states were answered or the request was settled without them (moot); NULL: pending.';

COMMENT ON COLUMN ledger.file_state_request.outcome IS
'held (the check held on this merge''s tree: the finding was superseded by this merge, rule check), failed (it did not: audit check_failed), moot (the finding was retired by an earlier merge, dismissed or superseded otherwise before this request was settled), overruled (it held, but on the tree of a merge before the finding''s latest decision by a person, restore or dismiss: audit check_overruled, the finding stays), error (a part of the check could not be evaluated, a back reference or a match PostgreSQL gave up: audit check_error naming the part and the reason, the finding stays); NULL: not settled (pending, or answered and waiting for an earlier request of the same finding).';

COMMENT ON COLUMN ledger.file_state_request.part IS
'The part of the check that held or failed, as a JSON path into resolved_when (path_exists, all[0].file_contains, any); NULL while not settled or moot.';

COMMENT ON COLUMN ledger.file_state_request.id IS
'The request''s id (identity).';

COMMENT ON COLUMN ledger.file_state_request.scope IS
'The scope of the merge and the finding (ledger.scope.scope); per-scope row-level security applies.';

COMMENT ON COLUMN ledger.file_state_request.merge_id IS
'The touching merge (ledger.merge.id) whose tree the request asks about; answer with ledger.record_file_states(merge_id, states).';

COMMENT ON COLUMN ledger.file_state_request.finding_id IS
'The checked finding (ledger.finding.id) whose resolved_when is evaluated on that tree.';

COMMENT ON COLUMN ledger.file_state_request.requested_at IS
'When the merge opened the request (the merge''s transaction time).';
