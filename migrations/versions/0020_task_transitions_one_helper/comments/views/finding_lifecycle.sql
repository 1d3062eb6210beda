COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the lifecycle states. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
