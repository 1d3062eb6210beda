-- ledger.poisoned_failure_reason: failure reasons after which a provider
-- session is never resumed. Ships with the three reasons below; a DBA or
-- ledger_admin edits the list with plain INSERT / DELETE.
CREATE TABLE ledger.poisoned_failure_reason (
    failure_reason text NOT NULL,
    note           text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT poisoned_failure_reason_pkey PRIMARY KEY (failure_reason)
);

COMMENT ON TABLE ledger.poisoned_failure_reason IS
'Failure reasons that poison a provider session: a session whose latest run ended with one of these is never resumed by a later claim (and so never anchors a delta). Edit with plain INSERT / DELETE.';

INSERT INTO ledger.poisoned_failure_reason (failure_reason, note) VALUES
    ('context_window_exceeded', 'the session can no longer take a turn'),
    ('session_corrupted', 'the provider reported the session state as unusable'),
    ('session_not_found', 'the provider no longer knows the session');
