COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the drift-review scenario''s superseded_by IS NULL filter. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
