-- ledger.injection: which findings were injected into which session's
-- prompt, one row per (session, finding), the first injection time.
CREATE TABLE ledger.injection (
    session_id  text NOT NULL,
    finding_id  bigint NOT NULL,
    injected_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT injection_pkey PRIMARY KEY (session_id, finding_id),
    CONSTRAINT injection_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id)
);

CREATE INDEX injection_finding_idx ON ledger.injection (finding_id, session_id);

COMMENT ON TABLE ledger.injection IS
'Which findings were injected into which session''s prompt: one row per (session, finding) pair, the first injection time. Write with ledger.record_injection or INSERT ... ON CONFLICT DO NOTHING.';
