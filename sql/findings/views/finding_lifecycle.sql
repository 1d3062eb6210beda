-- ledger.finding_lifecycle: every finding with its lifecycle state at a glance.
--
-- One row per finding (nothing is ever deleted). Columns: id, scope,
-- finding_key, kind, severity, title, state ('active', 'superseded',
-- 'dismissed', see ledger._finding_state), resolution (accepted,
-- false_positive, wont_fix, duplicate; dismissed findings only),
-- dismissed_at, dismissed_by, dismissal_reason, superseded_at,
-- superseded_by, superseded_by_merge_id, supersede_rule (path, rereview,
-- dismissal, ...), report_count (times reported, the first report
-- included), last_reported_at (latest re-report, NULL if never re-reported),
-- reopen_count (times it went back to active: re-report, revert, restore),
-- review_run (the review run that last reported it), created_at.
-- Implements the lifecycle states; the audit (ledger.supersession) holds the
-- timeline (ledger.read_history).
-- While per-scope row-level security is on and applies to the reader, only
-- the scopes in ledger.scopes: a view reads its tables with its owner's
-- rights, so the policies on ledger.finding would not apply through it
-- (security_invoker views need PostgreSQL 15); the same predicate as
-- ledger.active_finding is written here.
CREATE OR REPLACE VIEW ledger.finding_lifecycle AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title,
       ledger._finding_state(f.superseded_at, f.dismissed_at) AS state,
       f.resolution, f.dismissed_at, f.dismissed_by, f.dismissal_reason,
       f.superseded_at, f.superseded_by, f.superseded_by_merge_id, f.supersede_rule,
       f.report_count, f.last_reported_at, f.reopen_count, f.review_run, f.created_at
  FROM ledger.finding f
 WHERE NOT (SELECT pg_catalog.row_security_active('ledger.finding'::pg_catalog.regclass))
    OR f.scope = ANY ((SELECT ledger._visible_scopes())::text[]);

COMMENT ON VIEW ledger.finding_lifecycle IS
'Every finding with its derived lifecycle state (active, superseded, dismissed), its dismissal (resolution, by, reason), its supersession and its counters (report_count, last_reported_at, reopen_count, review_run). Implements the lifecycle states. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
