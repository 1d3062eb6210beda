-- Per-scope row-level security and reconcile, the walkthrough of docs/security.md. Run as the owner
-- (the role that ran the migrations); one statement fails on purpose, so no ON_ERROR_STOP
-- (run: psql -X -a -f docs/examples/security.sql, from the checkout, on a freshly migrated database).
\set SHOW_CONTEXT never
-- These scopes retire a drift finding on a touch (the shipped touch mode of kind drift is flag).
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('spec-07', '{"drift": "retire"}'), ('spec-08', '{"drift": "retire"}');
INSERT INTO ledger.finding (scope, kind, title, paths) VALUES
  ('spec-07', 'drift', 'a.py is stale', '{src/a.py}'),
  ('spec-08', 'drift', 'b.py is stale', '{src/b.py}');
-- Once, as the owner: per-scope row-level security on.
SELECT * FROM ledger.enable_scope_rls();
-- A writer's connection serves spec-07 only (its connection layer sets ledger.scopes, never tenant input).
SET ROLE ledger_writer;
SET ledger.scopes = 'spec-07';
SELECT id, scope, title FROM ledger.finding;
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec-08', 'abc123', '{src/b.py}');
RESET ROLE;
-- A merge loaded while triggers did not fire (logical replication, pg_restore --disable-triggers) has no effect ...
SET session_replication_role = replica;
INSERT INTO ledger.merge (scope, commit_sha, paths) VALUES ('spec-07', 'def456', '{src/a.py}');
RESET session_replication_role;
SELECT id, scope, commit_sha, processed FROM ledger.merge;
-- ... until reconcile applies it, once, with the triggers' own rules.
SET ROLE ledger_admin;
SELECT r.merge_id, d->>'finding_id' AS finding_id, d->>'action' AS action, d->>'rule' AS rule,
       d->>'evidence' AS evidence
  FROM ledger.reconcile('spec-07') AS r, jsonb_array_elements(r.decisions) AS d;
SELECT * FROM ledger.reconcile('spec-07');
