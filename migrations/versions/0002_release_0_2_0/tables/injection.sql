CREATE TABLE ledger.injection (
    session_id  text NOT NULL,
    finding_id  bigint NOT NULL,
    injected_at timestamptz NOT NULL DEFAULT now(),
    scope       text NOT NULL,
    CONSTRAINT injection_pkey PRIMARY KEY (session_id, finding_id),
    CONSTRAINT injection_finding_id_fkey FOREIGN KEY (finding_id) REFERENCES ledger.finding (id),
    CONSTRAINT injection_scope_fkey FOREIGN KEY (scope) REFERENCES ledger.scope (scope)
);

COMMENT ON TABLE ledger.injection IS
'Which findings were injected into which session''s prompt: one row per (session, finding) pair, the first injection time. Write with ledger.record_injection or INSERT ... ON CONFLICT DO NOTHING.';

COMMENT ON COLUMN ledger.injection.scope IS
'The scope of the injected finding (ledger.finding.scope), set by the _100_prepare trigger from finding_id: a writer need not send it, and one that sends another scope than the finding''s is refused (LD003).';
