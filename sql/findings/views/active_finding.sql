-- ledger.active_finding: the findings still to be injected into prompts.
--
-- Exactly the findings with superseded_at IS NULL (the drift-review scenario's filter
-- "superseded_by IS NULL", kept as a view so every reader applies the same
-- rule). Columns: id, scope, finding_key, kind, severity, title, description,
-- paths, source, created_at. Ordered by nothing; use
-- ledger.active_findings(scope) for the prompt order.
-- While per-scope row-level security is on and applies to the reader, only
-- the scopes in ledger.scopes: a view reads its tables with its owner's
-- rights, so the policies on ledger.finding would not apply through it
-- (security_invoker views need PostgreSQL 15); the same predicate is
-- written here. Both conditions are uncorrelated subqueries, evaluated once
-- per query.
CREATE OR REPLACE VIEW ledger.active_finding AS
SELECT f.id, f.scope, f.finding_key, f.kind, f.severity, f.title, f.description,
       f.paths, f.source, f.created_at
  FROM ledger.finding f
 WHERE f.superseded_at IS NULL
   AND (NOT (SELECT pg_catalog.row_security_active('ledger.finding'::pg_catalog.regclass))
        OR f.scope = ANY ((SELECT ledger._visible_scopes())::text[]));

COMMENT ON VIEW ledger.active_finding IS
'Active findings (superseded_at IS NULL): the set a prompt builder injects. Implements the drift-review scenario''s superseded_by IS NULL filter. Honours per-scope row-level security (ledger.scopes) for readers it applies to.';
