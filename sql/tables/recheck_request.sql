-- ledger.recheck_request: the recheck queue of findings without a check in
-- a scope whose touch mode for their kind is recheck (scope.touch_modes). A
-- merge whose touch the path rule would take as resolving opens one row per
-- (finding, merge) instead of retiring the finding; a verifier claims rows
-- (ledger.claim_rechecks: SKIP LOCKED, a lease) and answers
-- (ledger.answer_recheck): resolved retires the finding with rule recheck.
-- Written only by the SECURITY DEFINER merge trigger and those functions.
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
    CONSTRAINT recheck_request_pkey PRIMARY KEY (id),
    CONSTRAINT recheck_request_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope),
    CONSTRAINT recheck_request_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id),
    CONSTRAINT recheck_request_merge_id_fkey FOREIGN KEY (merge_id) REFERENCES ledger.merge (id),
    CONSTRAINT recheck_request_finding_merge_key UNIQUE (finding_id, merge_id),
    CONSTRAINT recheck_request_answer_check CHECK ((answered_at IS NULL) = (resolved IS NULL))
);

CREATE INDEX recheck_request_open_idx ON ledger.recheck_request (scope, id) WHERE answered_at IS NULL;

COMMENT ON TABLE ledger.recheck_request IS
'The recheck queue: one row per (finding, merge) whose touch would have retired a finding without a check under touch mode recheck. Claimed with ledger.claim_rechecks (verifier, lease_until), answered with ledger.answer_recheck (answered_at, resolved, evidence). Open while answered_at IS NULL.';
COMMENT ON COLUMN ledger.recheck_request.verifier IS
'Who holds or held the lease (the p_verifier of ledger.claim_rechecks); NULL: never claimed.';
COMMENT ON COLUMN ledger.recheck_request.lease_until IS
'Until when the verifier''s claim holds; after it the request can be claimed again (by anyone), and an answer under the old lease is refused (LD103).';
COMMENT ON COLUMN ledger.recheck_request.resolved IS
'The verifier''s answer: true retires the finding (rule recheck, superseded by the request''s merge), false keeps it; NULL while open.';
COMMENT ON COLUMN ledger.recheck_request.evidence IS
'The verifier''s evidence for the answer (required, at most 10000 characters), copied into the audit row.';
