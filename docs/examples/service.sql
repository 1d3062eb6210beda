-- What a service writes with plain SQL (run: psql -X -v ON_ERROR_STOP=1 -f docs/examples/service.sql).
-- 0. This scope retires a drift finding on a touch (the path rule alone); the shipped
--    touch mode of kind drift is flag: the finding stays, audited 'flagged'.
INSERT INTO ledger.scope (scope, touch_modes) VALUES ('07_nightshift', '{"drift": "retire"}');

-- 1. A drift review reports findings; paths are normalised on write.
INSERT INTO ledger.finding (scope, finding_key, kind, severity, title, paths, source) VALUES
  ('07_nightshift', 'F01', 'drift', 'high', 'The packages/nightshift/ directory does not exist.',
   ARRAY['packages/nightshift/'], '07_nightshift:0'),
  ('07_nightshift', 'F03', 'drift', 'high', 'packages/af/af/app.py imports and registers night-shift.',
   ARRAY['./packages/af/af/app.py:88'], '07_nightshift:0'),
  ('07_nightshift', 'F04', 'drift', 'medium', 'Night-shift tests have not been migrated.',
   ARRAY['packages\af\tests\test_nightshift.py'], '07_nightshift:0'),
  ('07_nightshift', 'F11', 'drift', 'low', 'The README quick start still runs `af night-shift`.',
   ARRAY['README.md'], '07_nightshift:0'),
  ('07_nightshift', 'F12', 'drift', 'low', 'No migration note for users of `af night-shift`.',
   '{}', '07_nightshift:0');

-- 2. Merges land (one statement, two rows); each supersedes what it touched.
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths) VALUES
  ('07_nightshift', '342b7a0b9ad4', '07_nightshift:2', 'Remove night-shift from the af CLI',
   ARRAY['packages/af/af/nightshift.py', 'packages/af/af/app.py']),
  ('07_nightshift', 'ad342a91c0de', '07_nightshift:3', 'Scaffold packages/nightshift',
   ARRAY['packages/nightshift/pyproject.toml', 'pyproject.toml'])
ON CONFLICT (scope, commit_sha) DO NOTHING;

-- 3. The same merge delivered again: no row, no second effect (other paths or
--    another message would be an error, LD007: a merge is recorded once).
INSERT INTO ledger.merge (scope, commit_sha, node_id, message, paths)
VALUES ('07_nightshift', '342b7a0b9ad4', '07_nightshift:2', 'Remove night-shift from the af CLI',
        ARRAY['packages/af/af/app.py', 'packages/af/af/nightshift.py'])
ON CONFLICT (scope, commit_sha) DO NOTHING;

-- 4. What the next prompt gets.
SELECT id, finding_key, severity, title, paths
  FROM ledger.active_finding
 WHERE scope = '07_nightshift'
 ORDER BY id;

-- 5. Why the others went: the audit.
SELECT a.finding_id, f.finding_key, a.action, a.evidence, f.superseded_by
  FROM ledger.supersession a JOIN ledger.finding f ON f.id = a.finding_id
 WHERE a.scope = '07_nightshift'
 ORDER BY a.id;
