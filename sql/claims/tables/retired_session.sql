-- ledger.retired_session: provider sessions a later claim must not resume
-- (rotated, expired, abandoned).
CREATE TABLE ledger.retired_session (
    session_id text NOT NULL,
    reason     text,
    retired_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT retired_session_pkey PRIMARY KEY (session_id)
);

COMMENT ON TABLE ledger.retired_session IS
'Provider sessions that must not be resumed any more (rotated, expired, deliberately abandoned). A later claim skips them when it looks for the session to resume. Add with INSERT INTO ledger.retired_session (session_id, reason).';
