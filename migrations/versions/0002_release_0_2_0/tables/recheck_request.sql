CREATE TABLE ledger.recheck_request (
    id           bigint GENERATED ALWAYS AS IDENTITY,
    scope        text NOT NULL,
    finding_id   bigint NOT NULL,
    merge_id     bigint NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    verifier     text,
    lease_until  timestamptz,
    answered_at  timestamptz,
    resolved     boolean,
    evidence     text,
    outcome      text,
    CONSTRAINT recheck_request_pkey PRIMARY KEY (id),
    CONSTRAINT recheck_request_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT recheck_request_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id),
    CONSTRAINT recheck_request_merge_id_fkey FOREIGN KEY (merge_id) REFERENCES ledger.merge (id),
    CONSTRAINT recheck_request_finding_merge_key UNIQUE (finding_id, merge_id),
    CONSTRAINT recheck_request_answer_check CHECK ((answered_at IS NULL) = (resolved IS NULL)),
    CONSTRAINT recheck_request_outcome_check CHECK (outcome IN ('resolved', 'kept', 'moot', 'overruled'))
);

CREATE INDEX recheck_request_open_idx ON ledger.recheck_request (scope, id) WHERE answered_at IS NULL;

COMMENT ON TABLE ledger.recheck_request IS
'The recheck queue: one row per (finding, merge) whose touch of a file of a finding without a check counts under touch mode recheck. Claimed with ledger.claim_rechecks (verifier, lease_until), answered with ledger.answer_recheck (answered_at, resolved, evidence), settled in merge order (outcome). Open (claimable) while answered_at and outcome are NULL.';

COMMENT ON COLUMN ledger.recheck_request.verifier IS
'Who holds or held the lease (the p_verifier of ledger.claim_rechecks); NULL: never claimed.';

COMMENT ON COLUMN ledger.recheck_request.lease_until IS
'Until when the verifier''s claim holds; after it the request can be claimed again (by anyone), and an answer under the old lease is refused (LD103).';

COMMENT ON COLUMN ledger.recheck_request.resolved IS
'The verifier''s answer: true retires the finding (rule recheck, superseded by the request''s merge) once the earlier requests of the finding are settled, false keeps it; NULL while unanswered.';

COMMENT ON COLUMN ledger.recheck_request.outcome IS
'How the request settled (ledger._settle_rechecks, in merge order per finding): resolved (the answer retired the finding: superseded by this merge, rule recheck; would_supersede unless hygiene_mode on), kept (answered false: audit recheck_kept), moot (the finding was retired by any rule, by an earlier merge''s answer or dismissed before this request settled: not claimable, an answer changes nothing), overruled (answered resolved for a merge before the finding''s latest decision by a person, restore or dismiss: audit recheck_overruled, the finding stays); NULL: open, or answered resolved and waiting for an earlier open request of the finding.';

COMMENT ON COLUMN ledger.recheck_request.evidence IS
'The verifier''s evidence for the answer (required, at most 10000 characters), copied into the audit row.';

COMMENT ON COLUMN ledger.recheck_request.id IS
'The request''s id (identity): what ledger.answer_recheck takes.';

COMMENT ON COLUMN ledger.recheck_request.scope IS
'The scope of the finding and the merge; per-scope row-level security applies.';

COMMENT ON COLUMN ledger.recheck_request.finding_id IS
'The finding without a check that the touch would have retired (ledger.finding.id).';

COMMENT ON COLUMN ledger.recheck_request.merge_id IS
'The touching merge (ledger.merge.id); a resolved answer supersedes the finding by this merge.';

COMMENT ON COLUMN ledger.recheck_request.requested_at IS
'When the merge queued the request.';

COMMENT ON COLUMN ledger.recheck_request.answered_at IS
'When the verifier answered (ledger.answer_recheck); NULL: not answered (open, or moot without an answer).';
