-- finding_active_evidence_idx: the message evidence of every active finding
-- (key, slug, strong keywords, title word triples; ledger._evidence_keys),
-- scope in every key. The message matcher probes it once per merge with the
-- message's tokens.
CREATE INDEX finding_active_evidence_idx ON ledger.finding
    USING gin (ledger._evidence_keys(scope, finding_key, slug, strong_keywords, title)) WITH (fastupdate = off)
    WHERE superseded_at IS NULL;
