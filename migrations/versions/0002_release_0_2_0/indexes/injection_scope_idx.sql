CREATE INDEX injection_scope_idx ON ledger.injection (scope, session_id);
