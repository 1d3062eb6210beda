-- The README's SQL example (run: psql -X -v ON_ERROR_STOP=1 -f docs/examples/quickstart.sql).
-- This scope retires a drift finding on a touch (the shipped default flags it instead).
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('spec-07', '{"drift": "retire"}');
-- A drift review reports three findings; paths are normalised on write.
INSERT INTO ledger.finding (scope, finding_key, kind, severity, title, paths) VALUES
  ('spec-07', 'F01', 'drift', 'high', 'app.py still registers night-shift.', ARRAY['./packages/af/af/app.py:88']),
  ('spec-07', 'F02', 'drift', 'medium', 'packages/nightshift/ does not exist.', ARRAY['packages/nightshift/']),
  ('spec-07', 'F03', 'drift', 'low', 'The README still runs af night-shift.', ARRAY['README.md']);
-- A merge lands, touching F01's file and a file inside F02's directory.
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths) VALUES
  ('spec-07', '342b7a0b9ad4', 'group-2', 'Move night-shift into its own package',
   ARRAY['packages/af/af/app.py', 'packages/nightshift/pyproject.toml'])
ON CONFLICT (scope, commit_sha) DO NOTHING;
-- What the next prompt carries, and why the others went.
SELECT finding_key, severity, title, paths FROM ledger.active_finding WHERE scope = 'spec-07';
SELECT f.finding_key, a.action, a.rule, a.evidence, f.superseded_by
  FROM ledger.supersession a JOIN ledger.finding f ON f.id = a.finding_id
 WHERE a.scope = 'spec-07' ORDER BY a.id;
