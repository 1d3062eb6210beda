-- The audit says why: the message-matching example of docs/matching.md
-- (run: psql -X -v ON_ERROR_STOP=1 -f docs/examples/matching.sql, on a freshly migrated database).
INSERT INTO ledger.finding (scope, finding_key, slug, strong_keywords, title) VALUES
  ('spec07', 'F-41', 'retry-storm', '{ECONNRESET_POOL}', 'Retry storm after connection resets in the pool'),
  ('spec07', 'F-42', NULL, '{}', 'Root pyproject.toml is missing nightshift workspace entries'),
  ('spec07', 'F-421', NULL, '{}', 'Flaky timeout test in the scheduler suite');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES
  ('spec07', '3f2a9c1', E'Add missing nightshift workspace entries\n\nFixes F-41, see F-421.\nDoes not fix F-42 yet.');
SELECT finding_id AS id, action, rule, evidence, reason FROM ledger.supersession ORDER BY id;
-- The scope key import-findings --workspace derives from a directory: collision-free.
SELECT ledger.workspace_scope('/a/b-c') AS "/a/b-c", ledger.workspace_scope('/a/b/c') AS "/a/b/c";
