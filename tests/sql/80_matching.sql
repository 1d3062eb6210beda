-- Message matching: a merge message retires a
-- finding only on confident evidence (a resolution verb governing its key,
-- slug, strong keyword or title), a mere mention is audited and changes
-- nothing, evidence naming several findings is ambiguous, and the scope's
-- policy (rules, branch) applies; LD101/LD102 by SQLSTATE. Each merge is a
-- plain INSERT, as services write them.
BEGIN;
SELECT plan(25);

INSERT INTO ledger.finding (scope, finding_key, slug, strong_keywords, title) VALUES
    ('spec07', 'F-41', 'retry-storm', '{ECONNRESET_POOL}', 'Retry storm after connection resets in the pool'),
    ('spec07', 'F-42', NULL, '{}', 'Root pyproject.toml is missing nightshift workspace entries'),
    ('spec07', 'F-421', NULL, '{}', 'Flaky timeout test in the scheduler suite'),
    ('spec07', 'F-43', NULL, '{ETIMEDOUT_QUEUE}', 'Queue consumer gives up too early'),
    ('spec07', 'F-44', NULL, '{ETIMEDOUT_QUEUE}', 'Queue producer gives up too early'),
    ('spec07', 'F-45', 'drift-frozen', '{}', 'Drift findings are frozen at the first review');

-- Every decision a merge made, by finding key: (action, rule).
CREATE TEMP VIEW decided AS
SELECT m.commit_sha, f.finding_key, s.action, s.rule, s.evidence
  FROM ledger.supersession s JOIN ledger.merge m ON m.id = s.merge_id LEFT JOIN ledger.finding f ON f.id = s.finding_id;
CREATE TEMP VIEW state AS SELECT finding_key, state FROM ledger.finding_lifecycle WHERE scope = 'spec07';

-- mentions: audited, nothing changes
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000001', 'Fix for F-42 is still pending');
SELECT results_eq($$SELECT finding_key, action, rule FROM decided WHERE commit_sha = 'a0000001'$$,
    $$VALUES ('F-42', 'mention', 'key')$$,
    'A key after "Fix for" is only a mention: another word stands between the verb and the key.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000002', 'This does not fix F-42 yet');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000002' AND finding_key = 'F-42'), 'mention',
    'A negated verb ("does not fix") only mentions the finding.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000003', 'Fixes `F-42` in the docs example');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000003' AND finding_key = 'F-42'), 'mention',
    'A key inside a code span is only a mention.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000004', 'Revert "Fixes F-42"');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000004' AND finding_key = 'F-42'), 'mention',
    'A key in a Revert "..." subject is only a mention.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000005', E'Tidy the pool\n\nRefs: F-42');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000005' AND finding_key = 'F-42'), 'mention',
    'A Refs: trailer only mentions the finding.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000006', 'Handle ECONNRESET_POOL in the pool');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000006' AND finding_key = 'F-41'), 'mention',
    'A strong keyword without a resolution verb only mentions the finding.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'a0000007', 'Add 2026-06-24-drift-frozen.md');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'a0000007' AND finding_key = 'F-45'), 'mention',
    'A bare slug file name only mentions the finding while slug_mention_resolves is off.');
SELECT is((SELECT count(*)::int FROM state WHERE state = 'active'), 6, 'After all those mentions every finding is still active.');

-- whole tokens only
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'b0000001', 'Fixes F-421');
SELECT results_eq($$SELECT finding_key, action, rule FROM decided WHERE commit_sha = 'b0000001'$$,
    $$VALUES ('F-421', 'superseded', 'key')$$,
    'The message "Fixes F-421" resolves F-421 and does not name F-42.');
SELECT is((SELECT state FROM state WHERE finding_key = 'F-42'), 'active', 'F-42 is not found inside F-421.');

-- resolutions
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'b0000002', 'Resolves: F-42');
SELECT results_eq($$SELECT finding_key, action, rule, evidence FROM decided WHERE commit_sha = 'b0000002'$$,
    $$VALUES ('F-42', 'superseded', 'key', 'F-42')$$,
    'A resolution verb with a colon resolves the key it governs, audited with the key as evidence.');
SELECT is((SELECT state FROM state WHERE finding_key = 'F-42'), 'superseded', 'The resolved finding leaves the active set.');
INSERT INTO ledger.merge (scope, commit_sha, message)
VALUES ('spec07', 'b0000003', 'Closes findings/2026-06-24-drift-frozen.md');
SELECT results_eq($$SELECT finding_key, action, rule FROM decided WHERE commit_sha = 'b0000003'$$,
    $$VALUES ('F-45', 'superseded', 'slug')$$,
    'A verb governing the slug''s file name, even inside a path, resolves by the slug rule.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'b0000004', 'Fixes ECONNRESET_POOL');
SELECT results_eq($$SELECT finding_key, action, rule FROM decided WHERE commit_sha = 'b0000004'$$,
    $$VALUES ('F-41', 'superseded', 'keyword')$$,
    'A verb governing a strong keyword resolves by the keyword rule.');

-- ambiguity: the same evidence names two active findings
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'c0000001', 'Fixes ETIMEDOUT_QUEUE');
SELECT results_eq($$SELECT finding_key, action, rule FROM decided WHERE commit_sha = 'c0000001' ORDER BY 1$$,
    $$VALUES ('F-43', 'ambiguous', 'keyword'), ('F-44', 'ambiguous', 'keyword')$$,
    'Evidence that names two active findings is ambiguous for both.');
SELECT results_eq($$SELECT finding_key, state FROM state WHERE finding_key IN ('F-43', 'F-44') ORDER BY 1$$,
    $$VALUES ('F-43', 'active'), ('F-44', 'active')$$,
    'An ambiguous merge supersedes neither finding.');

-- a list governed by one verb; a title phrase
INSERT INTO ledger.finding (scope, finding_key, title) VALUES
    ('spec07', 'G-1', 'First of a list'), ('spec07', 'G-2', 'Second of a list'), ('spec07', 'G-3', 'Third of a list');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'd0000001', 'Fixes G-1, G-2 and G-3');
SELECT results_eq($$SELECT finding_key, action FROM decided WHERE commit_sha = 'd0000001' ORDER BY 1$$,
    $$VALUES ('G-1', 'superseded'), ('G-2', 'superseded'), ('G-3', 'superseded')$$,
    'One verb governs a list of keys: every key in it resolves.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('spec07', 'd0000002', 'Fix queue consumer gives up early');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'd0000002' AND finding_key = 'F-43'), 'superseded',
    'Three consecutive significant words of a title after a verb resolve it by the title rule.');

-- policy: a dry scope, a disabled rule, another branch
INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('dry07', 'H-1', 'Dry run finding');
UPDATE ledger.scope SET hygiene_mode = 'dry' WHERE scope = 'dry07';
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('dry07', 'e0000001', 'Fixes H-1');
SELECT results_eq($$SELECT finding_key, action FROM decided WHERE commit_sha = 'e0000001'$$,
    $$VALUES ('H-1', 'would_supersede')$$, 'A dry scope audits would_supersede and changes nothing.');
SELECT results_eq($$SELECT enabled_rules FROM ledger.set_match_policy('dry07', p_enabled_rules => '{path,slug,keyword,title}')$$,
    $$VALUES ('{path,slug,keyword,title}'::text[])$$, 'set_match_policy changes a scope''s enabled rules.');
INSERT INTO ledger.merge (scope, commit_sha, message) VALUES ('dry07', 'e0000002', 'Fixes H-1');
SELECT is((SELECT action FROM decided WHERE commit_sha = 'e0000002' AND finding_key = 'H-1'), 'skipped',
    'Evidence of a disabled rule is audited as skipped.');
SELECT is((ledger.set_match_policy('spec07', p_default_branch => 'refs/heads/main')).default_branch, 'main',
    'A default branch is stored without refs/heads/.');
INSERT INTO ledger.finding (scope, finding_key, title) VALUES ('spec07', 'G-9', 'Ninth');
INSERT INTO ledger.merge (scope, commit_sha, message, branch) VALUES ('spec07', 'e0000004', 'Fixes G-9', 'feature/x');
SELECT results_eq($$SELECT finding_key, action FROM decided WHERE commit_sha = 'e0000004' AND finding_key IS NOT NULL$$,
    $$VALUES ('G-9', 'skipped')$$, 'A merge on another branch than the default changes nothing and is audited skipped.');

-- evidence validation
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, strong_keywords) VALUES ('spec07', 't', '{dispatcher}')$$,
    'LD101', NULL, 'A strong keyword that is a bare topic word is refused with LD101.');
SELECT throws_ok($$INSERT INTO ledger.finding (scope, title, slug) VALUES ('spec07', 't', 'two words')$$,
    'LD102', NULL, 'A slug that is not one token is refused with LD102.');

SELECT * FROM finish();
ROLLBACK;
